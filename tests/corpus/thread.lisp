;; thread — branch threading (src/compiler/opt/thread.c): one value tested twice in a row,
;; `(when (and (= p 6) long) (return ...)) (when (= p 6) ...)`. When the first test fails on
;; p != 6 the second is decided, so the first jumps past it. Proves: the threaded program
;; computes what clang's does for a packet of each kind (p = 6 long, p = 6 short, p = 17),
;; counting in the map what each path did.
;; Crafted inputs: the first byte is p; the packet is long (64 bytes) or short (8).
;; twin-args: --input 06000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
;; twin-args: --input 0600000000000000
;; twin-args: --input 1100000000000000
(defmap paths :type :array :key u32 :value u64 :max-entries 4)

(defprog thread (:type :xdp)
  (let* ((data (xdp-data)) (end (xdp-data-end)))
    (when (> (+ data 8) end)
      (return XDP_ABORTED))
    (let ((p (load u8 data 0))
          (long (<= (+ data 40) end)))
      (when (and (= p 6) long)
        (incf (getmap paths 0))
        (return XDP_PASS))
      (when (= p 6)
        (incf (getmap paths 1))
        (return XDP_TX))
      (incf (getmap paths 2))
      XDP_DROP)))
