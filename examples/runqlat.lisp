;;; runqlat.lisp — run-queue latency: how long tasks wait for a CPU once they are runnable, as a
;;; log2 histogram in microseconds (bucket k counts waits of 2^k to 2^(k+1)-1 us, bucket 0 those
;;; under 2 us), printed when kiln run ends. `kiln run examples/runqlat.lisp --duration 10`.
;;; To watch one process only, as `runqlat -p PID`, write its pid into the map only_tgid while
;;; it runs: `bpftool map update name only_tgid key 0 0 0 0 value hex 39 30 0 0` (12345).
;;;
;;; As bcc's runqlat: a task becomes runnable when it is woken (sched_wakeup, sched_wakeup_new)
;;; or when it is switched out still runnable (preempted, or yielding); its wait ends when
;;; sched_switch switches it in. The raw tracepoints hand over the task_structs themselves, and
;;; everything is read from them with CO-RE: pid and tgid, and the state of the task switched
;;; out — `__state` since Linux 5.14, `state` before it: core-field-exists picks the one the
;;; running kernel has, and libbpf removes the read of the other.

(defconstant task-running 0)
(defconstant max-slots 26)                     ; 2^25 us = 33 s and longer in the last bucket

;; tid -> runnable since (ns). An LRU hash: a task woken just as it was going to sleep never
;; leaves the CPU, and if it then exits its stamp is never consumed; the LRU drops such stamps
;; when the map fills instead of keeping them for ever.
(defmap start :type :lru-hash :key u32 :value u64 :max-entries 10240)
(defmap runq-hist-us :type :array :key u32 :value u64 :max-entries max-slots)
(defmap only-tgid :type :array :key u32 :value u32 :max-entries 1)  ; 0: every process

;; the task_struct of kernels before 5.14, whose state was a long named `state`
(defstruct task_struct___pre514 (:preserve-access-index) (state i64))

;; TASK (a task_struct address) is runnable from now
(defun enqueue (task)
  (let* ((p (kernel-ptr task_struct task))
         (tid (-> p pid))
         (tgid (getmap only-tgid 0)))
    (when (and (/= tid 0)                      ; the idle task is never queued
               (or (= tgid 0) (= tgid (-> p tgid))))
      (setf (getmap start tid) (ktime-get-ns)))))

;; sched_wakeup(p), sched_wakeup_new(p)
(defprog wakeup (:type :raw-tracepoint :section "raw_tracepoint/sched_wakeup")
  (enqueue (ctx u64 0))
  0)

(defprog wakeup-new (:type :raw-tracepoint :section "raw_tracepoint/sched_wakeup_new")
  (enqueue (ctx u64 0))
  0)

;; sched_switch(preempt, prev, next, ...)
(defprog switch (:type :raw-tracepoint :section "raw_tracepoint/sched_switch")
  (let* ((prev (kernel-ptr task_struct (ctx u64 8)))
         (state (if (core-field-exists task_struct __state)
                    (-> prev __state)
                    (core-read prev task_struct___pre514 state))))
    (when (= state task-running)               ; preempted: back on the run queue at once
      (enqueue prev)))
  (let ((tid (-> (kernel-ptr task_struct (ctx u64 16)) pid)))
    (when-let ((since (map-lookup start tid)))
      (let ((ns (- (ktime-get-ns) (load u64 since 0))))
        (when (s>= ns 0)                       ; as bcc: a stamp newer than now is no wait
          (let ((slot (log2 (/ ns 1000))))
            (when (>= slot max-slots)
              (setf slot (- max-slots 1)))
            (incf (getmap runq-hist-us slot)))))
      (delmap start tid)))
  0)
