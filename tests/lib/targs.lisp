;;; targs.lisp — typed arguments of tracing programs (test_targs.c): tp_btf programs read
;;; their arguments by name and with (arg N), follow task pointers with -> (direct loads on
;;; PTR_TO_BTF_ID), a raw tracepoint reads the same tracepoint with probe reads, and a raw
;;; tracepoint reads an untyped (arg N). Only events of the test's own process count: its
;;; tgid is cfg[0], the syscall number it makes is cfg[1].
(defmap cfg :type :array :key u32 :value u64 :max-entries 2)
(defmap out :type :array :key u32 :value u64 :max-entries 16)

(defun mine () (= (cast u32 (>> (get-current-pid-tgid) 32)) (getmap cfg 0)))

;; fork: parent is the test, child the process it forks
(defprog on-fork (:type :tp-btf :section "tp_btf/sched_process_fork")
  (when (= (-> parent tgid) (getmap cfg 0))
    (setf (getmap out 0) (-> child pid))
    (setf (getmap out 1) (-> child tgid))
    (setf (getmap out 2) (-> child real_parent tgid))
    (setf (getmap out 3) (-> (arg 1) pid))
    (setf (getmap out 11) (core-read child task_struct tgid))
    (incf (getmap out 4)))
  0)

;; the test's thread sleeping (prev, voluntarily: preempt false, prev_state interruptible)
;; and switched back in (next); nanosleep sleeps TASK_INTERRUPTIBLE | TASK_FREEZABLE
(defprog on-switch (:type :tp-btf :section "tp_btf/sched_switch")
  (when (and (= (-> prev tgid) (getmap cfg 0)) (not preempt) (= (logand prev-state #xff) 1))
    (setf (getmap out 5) (-> prev pid))
    (incf (getmap out 6)))
  (when (= (-> next tgid) (getmap cfg 0))
    (setf (getmap out 7) (-> next pid)))
  0)

;; the same fork through a raw tracepoint: typed, but read with bpf_probe_read_kernel
(defprog on-fork-raw (:type :raw-tracepoint :section "raw_tp/sched_process_fork")
  (when (= (-> parent tgid) (getmap cfg 0))
    (setf (getmap out 8) (-> child pid))
    (setf (getmap out 9) (core-read (arg 1) task_struct real_parent pid)))
  0)

;; sys_enter's (struct pt_regs *regs, long id): id by name and as (arg 1)
(defprog on-sys-enter (:type :raw-tracepoint :section "raw_tp/sys_enter")
  (when (and (mine) (= id (getmap cfg 1)) (= (arg 1) id))
    (incf (getmap out 10)))
  0)
