;; expect: tests/errors/if-arity.lisp:3:3: error: 'if' takes 2 to 3 arguments, got 0: (if)
(defprog p (:type :xdp)
  (if))
