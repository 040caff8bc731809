;; loop-while — (loop :while COND ...) loops that the verifier can bound.
;; Proves: Euclid's gcd on two packet words with a step counter in the condition (and with
;; mod by a non-zero divisor), setf of two places in one form where the second sees the
;; first, a walk over packet bytes whose condition bounds-checks before it loads (the `and`
;; must short-circuit), pointer incf, and an integer log2 by shifting.
;; Crafted inputs: consecutive Fibonacci numbers (45 steps), b = 0, a = 0, long byte runs.
;; twin-args: --input 010101010101e12419b15fe5736d0102030405060708090a0b0c0d0e0f101112131400000000000000000000
;; twin-args: --input 00000000000040420f000000000005050505050505050505050505050505050505050505050505050505050505050505050505050505
;; twin-args: --input 808080808080000000003930000000000000
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defprog loop-while (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 16) data-end)
      (return XDP_PASS))
    (let ((a (load u32 data 6))
          (b (load u32 data 10))
          (steps 0))
      (loop :while (and (/= b 0) (< steps 48))
        (let ((r (mod a b)))
          (setf a b
                b r))
        (incf steps))
      (incf (getmap results 0) a)
      (incf (getmap results 1) steps)
      (let ((n 0)
            (p (+ data 14)))
        (loop :while (and (< n 32) (<= (+ p 1) data-end) (/= (load u8 p 0) 0))
          (incf n)
          (incf p))
        (incf (getmap results 2) n)
        (let ((v (load u64 data 0))
              (log 0))
          (loop :while (and (> v 1) (< log 64))
            (setf v (>> v 1))
            (incf log))
          (incf (getmap results 3) log)
          (cast u32 (+ a (<< steps 20) (<< n 8) log)))))))
