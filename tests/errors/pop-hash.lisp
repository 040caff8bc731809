;; expect: tests/errors/pop-hash.lisp:4:12: error: map-pop works on :queue, :stack and :bloom-filter maps; 'h' is a :hash map
(defmap h :type :hash :key u32 :value u32 :max-entries 8)
(defprog p (:type :xdp)
  (map-pop h))
