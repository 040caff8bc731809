;; expect: tests/errors/defprog-bad-type.lisp:2:19: error: unknown program type (expected :xdp :tc :socket-filter :cgroup-skb :tracepoint :raw-tracepoint :tp-btf :fentry :fexit :fmod-ret :lsm :kprobe :kretprobe :uprobe :uretprobe :perf-event :sk-lookup :cgroup-sock :cgroup-sock-addr :sock-ops :sk-reuseport :struct-ops): :xdpp
(defprog p (:type :xdpp) XDP_PASS)
