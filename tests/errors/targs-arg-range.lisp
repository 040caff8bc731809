;; expect: tests/errors/targs-arg-range.lisp:3:8: error: argument 4: tracepoint sched_switch takes 4 (0 to 3: preempt, prev, next and prev_state)
(defprog on-switch (:type :tp-btf :section "tp_btf/sched_switch")
  (arg 4))
