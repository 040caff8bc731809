;;; runqlat.lisp — run-queue latency: how long tasks wait for a CPU once they are runnable, as a
;;; log2 histogram in microseconds (bucket k counts waits of 2^k to 2^(k+1)-1 us, bucket 0 those
;;; under 2 us), printed when kiln run ends. `kiln run examples/runqlat.lisp --duration 10`.
;;;
;;; As bcc's runqlat: a task becomes runnable when it is woken (sched_wakeup, sched_wakeup_new)
;;; or when it is switched out still runnable (preempted, or yielding); its wait ends when
;;; sched_switch switches it in. Whether the task switched out is still runnable is its
;;; task_struct's state, read with CO-RE from the current task (sched_switch runs in the task
;;; being switched out): `__state` since Linux 5.14, `state` before it — core-field-exists picks
;;; the one the running kernel has, and libbpf removes the read of the other.

(defconstant task-running 0)
(defconstant max-slots 26)                     ; 2^25 us = 33 s and longer in the last bucket

(defmap start :type :hash :key u32 :value u64 :max-entries 10240)   ; tid -> runnable since (ns)
(defmap runq-latency-log2-us :type :array :key u32 :value u64 :max-entries max-slots)

;; the task_struct of kernels before 5.14, whose state field was a long named `state`
(defstruct task_struct___pre514 (:preserve-access-index) (state i64))

(defun runnable-since-now (tid)
  (when (/= tid 0)                             ; the idle task is not queued
    (setf (getmap start tid) (ktime-get-ns))))

(defprog wakeup (:type :tracepoint :section "tracepoint/sched/sched_wakeup")
  (runnable-since-now (ctx pid))
  0)

(defprog wakeup-new (:type :tracepoint :section "tracepoint/sched/sched_wakeup_new")
  (runnable-since-now (ctx pid))
  0)

(defprog switch (:type :tracepoint :section "tracepoint/sched/sched_switch")
  (let ((prev-state (if (core-field-exists task_struct __state)
                        (-> (current-task) __state)
                        (core-read (current-task) task_struct___pre514 state))))
    (when (= prev-state task-running)          ; preempted: back on the run queue at once
      (runnable-since-now (ctx prev-pid))))
  (let ((next (ctx next-pid)))
    (when-let ((since (map-lookup start next)))
      (let ((ns (- (ktime-get-ns) (load u64 since 0))))
        (when (s>= ns 0)                     ; as bcc: a stamp newer than now is no wait
          (let ((slot (log2 (/ ns 1000))))
            (when (>= slot max-slots)
              (setf slot (- max-slots 1)))
            (incf (getmap runq-latency-log2-us slot)))))
      (delmap start next)))
  0)
