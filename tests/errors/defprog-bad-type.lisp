;; expect: tests/errors/defprog-bad-type.lisp:2:19: error: unknown program type (expected :xdp :tc :socket-filter :tracepoint :raw-tracepoint :tp-btf :fentry :fexit :lsm :uprobe :uretprobe :cgroup-skb :perf-event :kprobe :kretprobe): :xdpp
(defprog p (:type :xdpp) XDP_PASS)
