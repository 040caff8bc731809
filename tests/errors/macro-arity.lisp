;; expect: tests/errors/macro-arity.lisp:4:3: error: in macro 'twice' (defined at tests/errors/macro-arity.lisp:2): too many arguments (at tests/errors/macro-arity.lisp:4:12)
(defmacro twice (x) `(+ ,x ,x))
(defprog p (:type :xdp)
  (twice 1 2))
