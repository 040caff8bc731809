;; expect: tests/errors/queue-getmap.lisp:4:11: error: map 'q' is a :queue map, without keys: use map-push, map-pop and map-peek
(defmap q :type :queue :value u32 :max-entries 8)
(defprog p (:type :xdp)
  (getmap q 0))
