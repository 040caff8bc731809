;;; opensnoop.lisp — every openat() on the system: pid, uid, command, the path, the flags and
;;; the result (a file descriptor, or -errno). `kiln run examples/opensnoop.lisp [--json]`.

(defevent open-event
  [:pid :u32] [:uid :u32] [:flags :u32] [:ret :i32]
  [:comm :char 16] [:path :char 128])

(defmap pending :type :hash :key u32 :value open-event :max-entries 10240)
;; opens come by the thousand a second on a busy machine (a build, a fuzzer): 1 MB holds ~6,000
;; records, so a reader that loses the cpu for a moment drops none
(defmap events :type :ringbuf :max-entries (* 1024 1024))

(defprog open-enter (:type :tracepoint :section "tracepoint/syscalls/sys_enter_openat")
  (let ((tid (cast u32 (get-current-pid-tgid)))
        (e (make-open-event)))
    (setf (open-event-pid e) (cast u32 (>> (get-current-pid-tgid) 32))
          (open-event-uid e) (cast u32 (get-current-uid-gid))
          (open-event-flags e) (ctx u32 32))                                   ; flags
    (probe-read-user-str (open-event-path-ptr e) 128 (ctx u64 24))          ; filename
    (map-update-ptr pending (stack-addr tid) e BPF_ANY))
  0)

(defprog open-exit (:type :tracepoint :section "tracepoint/syscalls/sys_exit_openat")
  (let ((tid (cast u32 (get-current-pid-tgid))))
    (when-let ((p (getmap pending tid)))
      (with-event (e open-event events)
        (memcpy e 0 p 0 (sizeof open-event))
        (setf (open-event-ret e) (ctx i64 16))                                  ; ret
        (get-current-comm (open-event-comm-ptr e) 16))
      (delmap pending tid)))
  0)
