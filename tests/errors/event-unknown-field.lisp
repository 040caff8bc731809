;; expect: tests/errors/event-unknown-field.lisp:5:47: error: ping has no field 'tid'
(defevent ping [:pid :u32])
(defmap m :type :array :key u32 :value u64 :max-entries 1)
(defprog p (:type :xdp)
  (setf (getmap m 0) (event-field-offset ping :tid))
  XDP_PASS)
