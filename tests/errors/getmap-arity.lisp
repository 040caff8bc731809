;; expect: tests/errors/getmap-arity.lisp:4:3: error: 'getmap' takes 2 arguments, got 1: (getmap m)
(defmap m :type :array :key u32 :value u64 :max-entries 4)
(defprog p (:type :xdp)
  (getmap m))
