;; expect: tests/errors/asm-imm-range.lisp:3:21: error: immediate out of range: it must be in -2147483648..2147483647
(defprog p (:type :xdp)
  (asm () (add64 r1 4294967296))
  0)
