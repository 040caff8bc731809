;; expect: tests/errors/peek-queue-value.lisp:4:15: error: (map-peek M VALUE) asks a :bloom-filter; 'q' is a :stack map, peeked with (map-peek M)
(defmap q :type :stack :value u32 :max-entries 8)
(defprog p (:type :xdp)
  (map-peek q 5))
