;; expect: tests/errors/macro-expanded-once.lisp:7:5: error: unknown function or form '%F1' in (%F1); did you mean if? (in the expansion of macro 'fresh' at tests/errors/macro-expanded-once.lisp:7:5)
;; A macro call is expanded once: the gensym counter shows it (lowering and the assigned-
;; variable walk each expanded it again, and the name was %F2).
(defmacro fresh () (list (gensym "F")))
(defprog p (:type :xdp)
  (let ((x 0))
    (fresh)))
