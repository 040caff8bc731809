;; expect: tests/errors/with-event-not-ringbuf.lisp:5:21: error: with-event needs a :ringbuf map; 'm' is a :array map
(defevent ev [:pid :u32])
(defmap m :type :array :key u32 :value u64 :max-entries 4)
(defprog p (:type :xdp)
  (with-event (e ev m) (setf (ev-pid e) 1))
  XDP_PASS)
