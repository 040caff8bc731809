;; expect: tests/errors/macro-error-nested.lisp:5:28: error: in macro 'inner' (defined at tests/errors/macro-error-nested.lisp:4): inner refuses 5 (at tests/errors/macro-error-nested.lisp:4:21) (in the expansion of macro 'outer' at tests/errors/macro-error-nested.lisp:7:3)
;; An error in a macro call that another macro's expansion made: the message names the macro
;; called in the program and where.
(defmacro inner (x) (error (format nil "inner refuses ~a" x)))
(defmacro outer () '(progn (inner 5)))
(defprog p (:type :xdp)
  (outer))
