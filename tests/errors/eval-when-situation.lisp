;; expect: tests/errors/eval-when-situation.lisp:2:31: error: eval-when's situations are :compile-toplevel, :load-toplevel and :execute
(eval-when (:compile-toplevel :later)
  (defconstant x 1))
