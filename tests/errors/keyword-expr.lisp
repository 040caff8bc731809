;; expect: tests/errors/keyword-expr.lisp:3:6: error: keyword ':pass' is not an expression here
(defprog p (:type :xdp)
  (+ :pass 1))
