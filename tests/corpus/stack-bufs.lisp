;; stack-bufs — several stack buffers alive at once, next to spilled values.
;; Proves: every (stack-buffer N) is its own zeroed memory (no two overlap each other or a
;; spill slot): four 16-byte buffers and a struct buffer are filled with different packet
;; data while 10 loaded values are live across helper calls, then read back field by field;
;; a helper reads the buffers (csum-diff); a map value is copied into one after the others
;; were summed; bytes never written read as zero (a struct's padding included).
(defstruct pair
  (lo u32)
  (hi u32)
  (tag u16))

(defmap results :type :array :key u32 :value u64 :max-entries 16)
(defmap saved :type :array :key u32 :value u64 :max-entries 4)

(defprog stack-bufs (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 40) data-end)
      (return XDP_PASS))
    (let* ((a (stack-buffer 16))
           (b (stack-buffer 16))
           (c (stack-buffer 16))
           (d (stack-buffer 16))
           (p (stack-buffer (sizeof pair)))
           (v0 (load u64 data 0)) (v1 (load u64 data 8)) (v2 (load u64 data 16))
           (v3 (load u64 data 24)) (v4 (load u64 data 32)) (v5 (load u32 data 2))
           (v6 (load u32 data 6)) (v7 (load u16 data 12)) (v8 (load u8 data 23))
           (v9 (load u64 data 30)))
      (store u64 a 0 v0)
      (store u64 b 0 v1)
      (store u64 b 8 v2)
      (store u32 c 4 v5)
      (store u64 d 8 v3)
      (setf (pair-lo p) v6
            (pair-hi p) v8
            (pair-tag p) v7)
      (setf (getmap saved 0) (+ v4 v9))
      (let ((s1 (csum-diff 0 0 a 16 0))
            (s2 (csum-diff 0 0 b 16 0))
            (s3 (csum-diff 0 0 c 16 0))
            (s4 (csum-diff 0 0 d 16 0)))
        (incf (getmap results 0) s1)
        (incf (getmap results 1) s2)
        (incf (getmap results 2) s3)
        (incf (getmap results 3) s4)
        (incf (getmap results 4) (+ (load u64 a 0) (load u64 a 8)))
        (incf (getmap results 5) (logxor (load u64 b 0) (load u64 b 8)))
        (incf (getmap results 6) (+ (load u32 c 0) (load u32 c 4) (load u64 c 8)))
        (incf (getmap results 7) (+ (load u64 d 0) (load u64 d 8)))
        (incf (getmap results 8) (+ (pair-lo p) (* (pair-hi p) 3) (* (pair-tag p) 5)))
        (incf (getmap results 9) (load u16 p 10))
        (when-let ((m (map-lookup saved 0)))
          (store u64 d 0 (load u64 m 0)))
        (incf (getmap results 10) (load u64 d 0))
        (incf (getmap results 11)
              (+ v0 v1 v2 v3 v4 v5 v6 v7 v8 v9 (csum-diff 0 0 d 16 0)))
        (cast u32 (+ s1 s2 s3 s4))))))
