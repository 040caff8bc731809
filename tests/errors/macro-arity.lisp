;; expect: tests/errors/macro-arity.lisp:4:3: error: in macro expansion: too many arguments (at line 4, column 12)
(defmacro twice (x) `(+ ,x ,x))
(defprog p (:type :xdp)
  (twice 1 2))
