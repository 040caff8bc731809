;; expect: tests/errors/targs-unknown-tracepoint.lisp:3:44: error: the kernel has no tracepoint 'sched_swich' (no btf_trace_sched_swich in /sys/kernel/btf/vmlinux); did you mean sched_switch?
;; a tp_btf program's tracepoint must be one the kernel's BTF types (btf_trace_NAME)
(defprog on-switch (:type :tp-btf :section "tp_btf/sched_swich")
  0)
