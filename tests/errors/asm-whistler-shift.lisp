;; expect: tests/errors/asm-whistler-shift.lisp:3:19: error: shift count out of range: it must be in 0..63
(defprog p (:type :xdp)
  (asm #x67 1 0 0 64)
  0)
