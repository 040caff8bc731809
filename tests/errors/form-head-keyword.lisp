;; expect: tests/errors/form-head-keyword.lisp:3:3: error: syntax error: a form must start with a symbol: (:pass)
(defprog p (:type :xdp)
  (:pass))
