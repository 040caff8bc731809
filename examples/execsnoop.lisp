;;; execsnoop.lisp — every exec on the system as it happens: pid, the parent's pid, uid, the
;;; command it became, the file it ran and execve()'s return code (0, or -errno for a failed
;;; exec). The parent is read from the kernel's task_struct with CO-RE
;;; (task->real_parent->tgid, relocated by libbpf to the layout of the running kernel).
;;; `kiln run examples/execsnoop.lisp` streams them until Ctrl-C; add --json for JSON lines.

(defconstant max-path 128)

(defevent exec-event
  [:pid :u32] [:ppid :u32] [:uid :u32] [:ret :i32]
  [:comm :char 16] [:filename :char 128])

;; execve's arguments are only readable on entry and its result only on exit: the entry
;; parks the half-made event per thread, the exit completes and sends it.
(defmap pending :type :hash :key u32 :value exec-event :max-entries 10240)
(defmap events :type :ringbuf :max-entries (* 256 1024))

(defprog exec-enter (:type :tracepoint :section "tracepoint/syscalls/sys_enter_execve")
  (let ((tid (cast u32 (get-current-pid-tgid)))
        (e (make-exec-event)))
    (setf (exec-event-pid e) (cast u32 (>> (get-current-pid-tgid) 32))
          (exec-event-ppid e) (-> (current-task) real_parent tgid)    ; BPF_CORE_READ(task, real_parent, tgid)
          (exec-event-uid e) (cast u32 (get-current-uid-gid)))
    (probe-read-user-str (exec-event-filename-ptr e) max-path (ctx u64 16))   ; filename
    (map-update-ptr pending (stack-addr tid) e BPF_ANY))
  0)

(defprog exec-exit (:type :tracepoint :section "tracepoint/syscalls/sys_exit_execve")
  (let ((tid (cast u32 (get-current-pid-tgid))))
    (when-let ((p (getmap pending tid)))
      (with-event (e exec-event events)
        (memcpy e 0 p 0 (sizeof exec-event))
        (setf (exec-event-ret e) (ctx i64 16))                                  ; ret
        (get-current-comm (exec-event-comm-ptr e) 16))
      (delmap pending tid)))
  0)
