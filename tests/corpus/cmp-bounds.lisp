;; cmp-bounds — every comparison operator on every ordered pair of five packet values.
;; Proves: = /= < <= > >= are unsigned and s< s<= s> s>= are signed, exactly at the edges
;; 0, 1, 2^63-1, 2^63, 2^64-1 (and 2^31, 2^32-1, 2^32: where a 32-bit immediate or a
;; 32-bit compare would go wrong); a defun called from nested dotimes loops; a variable key
;; for getmap and incf (which inserts into the hash map when the key is absent).
;; Crafted inputs: five little-endian u64 values each.
;; twin-args: --input 00000000000000000100000000000000ffffffffffffff7f0000000000000080ffffffffffffffff
;; twin-args: --input feffffffffffffff01000000000000800000008000000000ffffffff00000000feffffffffffff7f
;; twin-args: --input 000000000000008000000000000000800000000000000000ffffffffffffffff0000000001000000
(defmap vals :type :array :key u32 :value u64 :max-entries 5)
(defmap masks :type :hash :key u32 :value u64 :max-entries 32)

(defun cmp-mask (a b)
  (logior (if (= a b) 1 0)
          (if (/= a b) 2 0)
          (if (< a b) 4 0)
          (if (<= a b) 8 0)
          (if (> a b) 16 0)
          (if (>= a b) 32 0)
          (if (s< a b) 64 0)
          (if (s<= a b) 128 0)
          (if (s> a b) 256 0)
          (if (s>= a b) 512 0)))

(defprog cmp-bounds (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 40) data-end)
      (return XDP_PASS))
    (dotimes (i 5)
      (setf (getmap vals i) (load u64 (+ data (* i 8)) 0)))
    (let ((digest 0))
      (dotimes (i 5)
        (dotimes (j 5)
          (let ((m (cmp-mask (getmap vals i) (getmap vals j))))
            (incf (getmap masks (+ (* i 5) j)) m)
            (setf digest (+ (* digest 3) m)))))
      (incf (getmap masks 100) digest)
      (cast u32 (logxor digest (>> digest 32))))))
