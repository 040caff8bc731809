;; expect: tests/errors/tracepoint-unknown.lisp:3:40: error: no tracepoint 'sched/sched_swich' in /sys/kernel/tracing/events/sched; did you mean sched_switch?
;; a tracepoint tracefs does not have is a compile-time error naming the nearest ones
(defprog p (:type :tracepoint :section "tracepoint/sched/sched_swich")
  0)
