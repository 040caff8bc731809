;; expect: tests/errors/eval-when-undefined.lisp:3:4: error: in eval-when: undefined function frob (not a function available in eval-when at compile time)
(eval-when (:compile-toplevel :load-toplevel :execute)
  (frob 1))
