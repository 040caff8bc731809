;;; opensnoop.lisp — every openat() on the system: pid, uid, command, the path, the flags and
;;; the result (a file descriptor, or -errno). `kiln run examples/opensnoop.lisp [--json]`.
;;; Settings, as libbpf-tools' opensnoop takes -p PID and -x: `--set target-pid=1234` watches
;;; one process, `--set failed-only=1` only the opens that failed. They are read-only globals
;;; (defparameter: .rodata), fixed before load, so the verifier knows them and drops the tests
;;; a setting turns off.

(defparameter target-pid 0 :type u32)   ; 0: every process
(defparameter failed-only 0 :type u8)   ; 1: only opens that returned an error

(defevent open-event
  [:pid :u32] [:uid :u32] [:flags :u32] [:ret :i32]
  [:comm :char 16] [:path :char 128])

(defmap pending :type :hash :key u32 :value open-event :max-entries 10240)
;; opens come by the thousand a second on a busy machine (a build, a fuzzer): 1 MB holds ~6,000
;; records, so a reader that loses the cpu for a moment drops none
(defmap events :type :ringbuf :max-entries (* 1024 1024))

(defprog open-enter (:type :tracepoint :section "tracepoint/syscalls/sys_enter_openat")
  (let ((tid (cast u32 (get-current-pid-tgid)))
        (pid (cast u32 (>> (get-current-pid-tgid) 32))))
    (when (or (= target-pid 0) (= pid target-pid))
      (let ((e (make-open-event)))
        (setf (open-event-pid e) pid
              (open-event-uid e) (cast u32 (get-current-uid-gid))
              (open-event-flags e) (ctx u32 32))                               ; flags
        (probe-read-user-str (open-event-path-ptr e) 128 (ctx u64 24))      ; filename
        (map-update-ptr pending (stack-addr tid) e BPF_ANY))))
  0)

(defprog open-exit (:type :tracepoint :section "tracepoint/syscalls/sys_exit_openat")
  (let ((tid (cast u32 (get-current-pid-tgid)))
        (ret (ctx i64 16)))                                                    ; ret
    (when-let ((p (getmap pending tid)))
      (when (or (= failed-only 0) (s< ret 0))
        (with-event (e open-event events)
          (memcpy e 0 p 0 (sizeof open-event))
          (setf (open-event-ret e) ret)
          (get-current-comm (open-event-comm-ptr e) 16)))
      (delmap pending tid)))
  0)
