;;; obj-counters.lisp — test_object's kiln programs: a counter for each hook, each in its own
;;; slot of `hits`, and two programs for BPF_PROG_TEST_RUN. `config` slot 0 holds the pid the
;;; raw tracepoint counts (sys_enter fires for every process).
(defmap hits :type :array :key u32 :value u64 :max-entries 16)
(defmap config :type :array :key u32 :value u64 :max-entries 1)

(defprog count-xdp (:type :xdp) (incf (getmap hits 0)) XDP_PASS)
(defprog count-xdp-named (:type :xdp :section "xdp/named") (incf (getmap hits 1)) XDP_PASS)
(defprog count-tc-in (:type :tc :section "tc/ingress") (incf (getmap hits 2)) TC_ACT_OK)
(defprog count-tc-out (:type :tc :section "tc/egress") (incf (getmap hits 3)) TC_ACT_OK)
(defprog count-getppid (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (incf (getmap hits 4))
  0)
(defprog count-sys-enter (:type :raw-tracepoint :section "raw_tracepoint/sys_enter")
  (when (= (>> (get-current-pid-tgid) 32) (getmap config 0))
    (incf (getmap hits 5)))
  0)
(defprog count-uprobe (:type :uprobe) (incf (getmap hits 6)) 0)
(defprog count-uretprobe (:type :uretprobe) (incf (getmap hits 7)) 0)
(defprog count-egress (:type :cgroup-skb :section "cgroup_skb/egress") (incf (getmap hits 8)) 1)
(defprog count-tcx-in (:type :tc :section "tcx/ingress") (incf (getmap hits 9)) TC_ACT_OK)

;; test-run: the first byte stamped, the frame sent back; the skb's mark counted up
(defprog xdp-stamp (:type :xdp :section "xdp/stamp")
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (if (<= (+ data 14) data-end)
        (progn (store u8 data 0 #xab) XDP_TX)
        XDP_ABORTED)))
(defprog mark-bump (:type :tc)
  (setf (ctx mark) (+ (ctx mark) 1))
  TC_ACT_OK)
