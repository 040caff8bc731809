;; logic — bitwise operators, and the logical and/or/not with their 0/1 values.
;; Proves: logand logior logxor (two and three operands) and lognot on full 64-bit values;
;; and/or/not used as values yield exactly 0 or 1 whatever the operands; and/or
;; short-circuit: the right operand's side effect (a map counter) happens only when the
;; left operand does not decide; when/unless with and/or/not tests.
(defmap results :type :array :key u32 :value u64 :max-entries 16)

(defprog logic (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 14) data-end)
      (return XDP_PASS))
    (let ((x (load u32 data 0))
          (y (load u32 data 4))
          (z (load u16 data 12)))
      (incf (getmap results 0) (logand x y))
      (incf (getmap results 1) (logior x y z))
      (incf (getmap results 2) (logxor x y))
      (incf (getmap results 3) (lognot x))
      (incf (getmap results 4) (and x y))
      (incf (getmap results 5) (or (= x 0) (> y 5)))
      (incf (getmap results 6) (not z))
      (incf (getmap results 7) (and (> x 3) (< y 1000000) z))
      (incf (getmap results 8) (or 0 z))
      (incf (getmap results 9) (logxor (lognot z) (logand x #xff00)))
      (when (or (> z 2048) (progn (incf (getmap results 10)) (< x 100)))
        (incf (getmap results 11)))
      (when (and (/= z 0) (progn (incf (getmap results 12)) (> x y)))
        (incf (getmap results 13)))
      (unless (or (not x) (and y (not (logand z 1))))
        (incf (getmap results 14)))
      (cast u32 (logior (<< (and x z) 1) (or y 0) (<< (not y) 2))))))
