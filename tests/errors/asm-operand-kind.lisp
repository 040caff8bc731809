;; expect: tests/errors/asm-operand-kind.lisp:3:21: error: operand 2 of 'ldxdw' must be a register, not 8
(defprog p (:type :xdp)
  (asm () (ldxdw r3 8 r1))
  0)
