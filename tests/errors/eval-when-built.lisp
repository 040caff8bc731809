;; expect: tests/errors/eval-when-built.lisp:3:3: error: in eval-when: eval of a form built at run time is supported only for kiln's top-level forms
(eval-when (:execute)
  (eval (list 'frob 1)))
