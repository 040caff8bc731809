;; big-hist — (bench) log2 histograms as bpftrace's hist() keeps them: packet length, IPv4
;; total length and TCP window each bucketed by floor(log2(v)) into one array (64 slots per
;; metric), plus per-metric count, sum, min and max, and a linear histogram of the TTL in
;; steps of 16.
;; Proves: (log2 x) computes the same slot as the C binary search, computed array keys,
;; min/max kept in maps with a compare before the store, a defun called three times.
;; twin-args: --input 020000000002020000000001080045000028123440004006149a0a0000010a0000029c40005000000001000000005002ffffff4e0000
;; twin-args: --input 02000000000202000000000108004500002c12344000400614960a0000010a0000029c4001bb000000010000000050100010250f000064617461
(defconstant slots 64)
(defmap hist :type :array :key u32 :value u64 :max-entries 192)
(defmap ttls :type :array :key u32 :value u64 :max-entries 16)
;; per metric m: 4m count, 4m+1 sum, 4m+2 min (0 until set), 4m+3 max
(defmap summary :type :array :key u32 :value u64 :max-entries 12)

(defun record (metric v)
  (incf (getmap hist (+ (* metric slots) (log2 v))))
  (let ((base (* metric 4)))
    (incf (getmap summary base))
    (incf (getmap summary (+ base 1)) v)
    (let ((mn (getmap summary (+ base 2))))
      (when (or (= mn 0) (< v mn))
        (setf (getmap summary (+ base 2)) v)))
    (when (> v (getmap summary (+ base 3)))
      (setf (getmap summary (+ base 3)) v)))
  0)

(defprog big-hist (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (record 0 (- data-end data))
    (when (> (+ data 54) data-end)
      (return XDP_PASS))
    (when (= (load u16 data 12) (htons #x0800))
      (record 1 (ntohs (load u16 data 16)))
      (incf (getmap ttls (>> (load u8 data 22) 4)))
      (when (= (load u8 data 23) 6)
        (record 2 (ntohs (load u16 data 48)))))
    XDP_PASS))
