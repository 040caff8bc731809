;; expect: tests/errors/event-size-unknown.lisp:5:34: error: event-size: 'pong' is not a defevent or defstruct
(defevent ping [:pid :u32])
(defmap m :type :array :key u32 :value u64 :max-entries 1)
(defprog p (:type :xdp)
  (setf (getmap m 0) (event-size pong))
  XDP_PASS)
