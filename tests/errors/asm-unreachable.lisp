;; expect: tests/errors/asm-unreachable.lisp:3:21: error: no path reaches this instruction of the asm (the kernel refuses unreachable code)
(defprog p (:type :xdp)
  (asm () (ja :end) (mov64 r0 1) :end)
  0)
