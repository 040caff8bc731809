;; expect: tests/errors/float-from-macro.lisp:5:8: error: the float 1.5 in BPF code: BPF has no floating point (a macro may compute with floats, but what it gives the code must be an integer) (in the expansion of macro 'half' at tests/errors/float-from-macro.lisp:5:8)
;; a macro that gives the code a float it computed: refused at the call
(defmacro half (n) (/ n 2.0))
(defprog p (:type :xdp)
  (+ 1 (half 3)))
