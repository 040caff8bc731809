;; expect: tests/errors/asm-arity.lisp:3:11: error: 'add64' takes 2 operands: (add64 r1)
(defprog p (:type :xdp)
  (asm () (add64 r1))
  0)
