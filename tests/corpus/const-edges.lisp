;; const-edges — the corner cases of constant operands: a constant divisor of zero and
;; constant shift amounts of 64 and more. The reference gives every operator one meaning;
;; this test holds the compiler to the run-time meaning (BPF's) when it sees constants:
;; (/ x 0) = 0, (mod x 0) = x, shift amounts taken modulo 64 -- whether it folds them,
;; rewrites them, or emits the instructions (the verifier refuses a constant shift >= 64,
;; so that last choice is not open).
(defmap results :type :array :key u32 :value u64 :max-entries 12)

(defprog const-edges (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 8) data-end)
      (return XDP_PASS))
    (let ((x (load u64 data 0)))
      (setf (getmap results 0) (/ x 0)
            (getmap results 1) (mod x 0)
            (getmap results 2) (/ 7 0)
            (getmap results 3) (mod 7 0)
            (getmap results 4) (<< x 64)
            (getmap results 5) (>> x 65)
            (getmap results 6) (>>> x 127)
            (getmap results 7) (<< 1 64)
            (getmap results 8) (>> #x8000000000000000 64)
            (getmap results 9) (>>> #x8000000000000000 127))
      (cast u32 (+ (/ x 0) (mod x 0))))))
