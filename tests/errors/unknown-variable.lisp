;; expect: tests/errors/unknown-variable.lisp:3:6: error: unknown variable 'packets'
(defprog p (:type :xdp)
  (+ packets 1))
