;; expect: tests/errors/asm-no-end.lisp:3:3: error: no path leaves this asm at its end (each ends in exit or loops); the code after it would be unreachable
(defprog p (:type :xdp)
  (asm () (mov64 r0 1) (exit))
  0)
