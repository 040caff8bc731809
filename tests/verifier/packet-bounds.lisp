;;; packet-bounds.lisp — reads a packet byte before checking the packet is that long.
;; expect: packet-bounds 6:12 R1 offset is outside of the packet
;; hint: compare (+ data N) with (ctx data-end)
(defprog classify (:type :xdp)
  (let ((data (ctx data)))
    (if (= (load u8 data 12) 8) XDP_DROP XDP_PASS)))
