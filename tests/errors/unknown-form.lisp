;; expect: tests/errors/unknown-form.lisp:3:4: error: unknown function or form 'frobnicate' in (frobnicate 1 2)
(defprog p (:type :xdp)
  (frobnicate 1 2))
