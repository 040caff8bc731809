;; percpu — per-CPU maps: :percpu-array, :percpu-hash and :lru-percpu-hash.
;; Proves: getmap, setf and incf on per-CPU maps read and write the current CPU's slot
;; (incf is a plain add there, and inserts the delta when the key is absent); the harness
;; runs both programs on one CPU and compares every CPU's slot.
;; twin-args: --repeat 2
(defmap pc-array :type :percpu-array :key u32 :value u64 :max-entries 4)
(defmap pc-hash :type :percpu-hash :key u32 :value u64 :max-entries 16)
(defmap pc-lru :type :lru-percpu-hash :key u32 :value u64 :max-entries 64)

(defprog percpu (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 14) data-end)
      (return XDP_PASS))
    (let ((etype (ntohs (load u16 data 12)))
          (len (- data-end data)))
      (incf (getmap pc-array 0))
      (incf (getmap pc-array 1) len)
      (setf (getmap pc-array 2) (logxor (getmap pc-array 2) etype))
      (setf (getmap pc-array 3) (+ (* (getmap pc-array 3) 31) len))
      (incf (getmap pc-hash (logand etype 15)) len)
      (setf (getmap pc-hash 100) (+ (getmap pc-hash 100) 1))
      (incf (getmap pc-lru (load u32 data 6)))
      (cast u32 (getmap pc-array 3)))))
