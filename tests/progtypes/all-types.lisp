;;; all-types.lisp — one program of every type the compiler core supports, each with
;;; libbpf's section name; tests/suites/progtypes.sh loads them all into the kernel.

(defmap hits :type :percpu-array :key u32 :value u64 :max-entries 16)

(defun hit (i) (incf (getmap hits i)) 0)

(defprog on-xdp (:type :xdp) (hit 0) XDP_PASS)
(defprog on-tc (:type :tc) (hit 1) TC_ACT_OK)
(defprog on-socket (:type :socket-filter) (hit 2) (ctx len))
(defprog on-tracepoint (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getpid") (hit 3))
(defprog on-raw-tp (:type :raw-tracepoint :section "raw_tracepoint/sys_enter") (hit 4))
(defprog on-fentry (:type :fentry :section "fentry/do_nanosleep") (hit 5))
(defprog on-fexit (:type :fexit :section "fexit/do_nanosleep") (hit 6))
(defprog on-uprobe (:type :uprobe) (hit 7))
(defprog on-uretprobe (:type :uretprobe) (hit 8))
(defprog on-cgroup-skb (:type :cgroup-skb) (hit 9) 1)
(defprog on-cgroup-egress (:type :cgroup-skb :section "cgroup_skb/egress") (hit 10) 1)
(defprog on-perf-event (:type :perf-event) (hit 11))
(defprog on-kprobe (:type :kprobe :section "kprobe/do_nanosleep") (hit 12))
;; tracepoint fields by name, read from the tracepoint's format in tracefs at compile time
(defprog on-exec (:type :tracepoint :section "tracepoint/sched/sched_process_exec")
  (hit (logand (+ (ctx pid) (ctx old-pid)) 15)))
