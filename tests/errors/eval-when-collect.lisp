;; expect: tests/errors/eval-when-collect.lisp:4:11: error: defconstant needs a name and a value: (defconstant NAME EXPR): (defconstant)
;; a kiln form that cannot be collected, evaluated (not quoted) in an eval-when: its own error
(eval-when (:execute)
  (when t (defconstant)))
