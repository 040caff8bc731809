;; expect: tests/errors/getmap-ringbuf.lisp:4:15: error: map 'events' is a :ringbuf map; it has no elements to look up
(defmap events :type :ringbuf :max-entries 4096)
(defprog p (:type :xdp)
  (if (getmap events 0) XDP_DROP XDP_PASS))
