;; expect: tests/errors/funcall-not-function.lisp:5:3: error: in macro 'call-list' (defined at tests/errors/funcall-not-function.lisp:3): not a function (at tests/errors/funcall-not-function.lisp:3:25)
;; a quoted list is data, not a lambda: calling it looks through every closure made so far
(defmacro call-list (x) (funcall '(1 2) x))
(defprog p (:type :xdp)
  (call-list 1))
