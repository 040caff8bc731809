;; expect: tests/errors/event-on-hash.lisp:3:65: error: :event is for :ringbuf and :perf-event-array maps, whose records it describes
(defevent probe [:pid :u32])
(defmap m :type :hash :key u32 :value u64 :max-entries 8 :event probe)
