;; expect: tests/errors/map-as-value.lisp:4:6: error: map 'm' used as a value; pass it to getmap, map-lookup or a helper
(defmap m :type :array :key u32 :value u64 :max-entries 4)
(defprog p (:type :xdp)
  (+ m 1))
