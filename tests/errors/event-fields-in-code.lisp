;; expect: tests/errors/event-fields-in-code.lisp:5:22: error: (event-fields ...) is a list of keywords at compile time, not a number: use it in a macro
(defevent ping [:pid :u32])
(defmap m :type :array :key u32 :value u64 :max-entries 1)
(defprog p (:type :xdp)
  (setf (getmap m 0) (event-fields ping))
  XDP_PASS)
