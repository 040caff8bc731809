;;; syscall-latency.lisp — how long system calls take: a log2 histogram of latencies in
;;; microseconds (printed when kiln run ends), and for every call slower than 10 ms an event
;;; with the process, the syscall number, the time taken and the user stack that made the
;;; call, which kiln run prints symbolized. `kiln run examples/syscall-latency.lisp`.
;;; Settings (read-only globals, fixed before load): `--set slow-ms=50` the threshold of a slow
;;; call, `--set target-pid=1234` one process only (its calls alone are timed and counted).

(defparameter slow-ms 10 :type u32)     ; calls at least this slow become events
(defparameter target-pid 0 :type u32)   ; 0: every process

(defevent slow-call
  [:pid :u32] [:nr :u32] [:ns :u64] [:stack :ustack] [:kstack :kstack]
  [:comm :char 16])

(defmap starts :type :hash :key u32 :value u64 :max-entries 10240)
(defmap latency-log2-us :type :array :key u32 :value u64 :max-entries 64)
(defmap stacks :type :stack-trace :key u32 :value-size (* 8 127) :max-entries 1024)
(defmap slow :type :ringbuf :max-entries (* 64 1024))

(defprog sys-enter (:type :tracepoint :section "tracepoint/raw_syscalls/sys_enter")
  (when (or (= target-pid 0) (= (cast u32 (>> (get-current-pid-tgid) 32)) target-pid))
    (setmap starts (cast u32 (get-current-pid-tgid)) (ktime-get-ns)))
  0)

(defprog sys-exit (:type :tracepoint :section "tracepoint/raw_syscalls/sys_exit")
  (let* ((tid (cast u32 (get-current-pid-tgid)))
         (start (getmap starts tid)))
    (when (> start 0)
      (let ((ns (- (ktime-get-ns) start)))
        (delmap starts tid)
        (incf (getmap latency-log2-us (log2 (+ 1 (/ ns 1000)))))
        (when (>= ns (* slow-ms 1000000))
          (with-event (e slow-call slow)
            (setf (slow-call-pid e) (cast u32 (>> (get-current-pid-tgid) 32))
                  (slow-call-nr e) (ctx u32 8)                                 ; id
                  (slow-call-ns e) ns
                  (slow-call-stack e) (get-stackid ctx stacks BPF_F_USER_STACK)
                  (slow-call-kstack e) (get-stackid ctx stacks 0))
            (get-current-comm (slow-call-comm-ptr e) 16))))))
  0)
