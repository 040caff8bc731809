;; expect: tests/errors/tracepoint-category.lisp:3:40: error: no tracepoint category 'shed' in /sys/kernel/tracing/events; did you mean sched?
;; an unknown category is named with the nearest ones too
(defprog p (:type :tracepoint :section "tp/shed/sched_switch")
  0)
