;;; loop-callback.lisp — a long dotimes (2,000 rounds) is lowered as a bpf_loop callback, where
;; the verifier knows the index only as a range: the bounds check is on data + (i + 1), the
;; read through data + i, another pointer. The hint names the switch; as a loop, even 400
;; rounds of this are more than the verifier walks (each round doubles the paths).
;; expect: packet-bounds 13:19 R4 offset is outside of the packet
;; hint: -fno-bpf-loop keeps the loop
(defmap out :type :array :key u32 :value u64 :max-entries 1)
(defprog scan (:type :xdp)
  (let ((data (ctx data))
        (sum 0))
    (dotimes (i 2000)
      (when (<= (+ data (+ i 1)) (ctx data-end))
        (incf sum (load u8 data i))))
    (setf (getmap out 0) sum)
    XDP_PASS))
