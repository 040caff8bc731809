;; expect: tests/errors/asm-shift.lisp:3:27: error: shift count out of range: it must be in 0..63
(defprog p (:type :xdp)
  (asm ((r1 1)) (lsh64 r1 64))
  0)
