;; expect: tests/errors/macro-recursive.lisp:4:3: error: macro 'again' expands without end (more than 1000 nested expansions)
(defmacro again (x) `(+ 1 (again ,x)))
(defprog p (:type :xdp)
  (again XDP_PASS))
