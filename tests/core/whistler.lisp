;;; whistler.lisp — Whistler's kernel forms, twin of whistler.bpf.c: import-kernel-struct's
;;; accessors, as-STRUCT and +STRUCT-size+, get-current-task, kernel-load (at a relocated
;;; offset), core-ctx-load on a tracepoint's context, and core-load (a direct load, relocated)
;;; through a tp_btf argument. Three programs: the child's getppid (indexes 0-9), the client
;;; side of the test's loopback connect (10-19), the child's creation (20-23, from the test's
;;; process, target[2]). Index 31 is written last by the first two.
(defmap results :type :array :key u32 :value u64 :max-entries 32)
(defmap target :type :array :key u32 :value u32 :max-entries 4)

(import-kernel-struct task-struct pid tgid real-parent comm)
(import-kernel-struct sock-common skc-num skc-dport skc-rcv-saddr skc-daddr skc-family)

(defprog wh-task (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (when (= (cast u32 (>> (get-current-pid-tgid) 32)) (getmap target 0))
    (let ((task (get-current-task))
          (buf (stack-buffer 16)))
      (setmap results 0 (task-struct-tgid task))
      (setmap results 1 (task-struct-pid task))
      (setmap results 2 (task-struct-tgid (task-struct-real-parent task)))
      (setmap results 3 +task-struct-size+)
      (setmap results 4 (kernel-load u32 task (core-field-offset task_struct tgid)))
      (setmap results 5 (probe-read-kernel-str buf 16 (task-struct-comm task)))
      (setmap results 6 (load u64 buf 0))
      (setmap results 7 (load u64 buf 8))
      (setmap results 8 (task-struct-pid (as-task-struct (+ (get-current-task) 0))))
      (setmap results 31 1)))
  0)

(defprog wh-sock (:type :tracepoint :section "tracepoint/sock/inet_sock_set_state")
  (when (and (= (core-ctx-load u16 0 trace_event_raw_inet_sock_set_state protocol) IPPROTO_TCP)
             (= (core-ctx-load i32 0 trace_event_raw_inet_sock_set_state oldstate) 2)
             (= (core-ctx-load i32 0 trace_event_raw_inet_sock_set_state newstate) 1)
             (= (core-ctx-load u16 0 trace_event_raw_inet_sock_set_state dport) (getmap target 1)))
    (let ((sk (as-sock-common (core-ctx-load u64 0 trace_event_raw_inet_sock_set_state skaddr))))
      (setmap results 10 (sock-common-skc-num sk))
      (setmap results 11 (sock-common-skc-dport sk))
      (setmap results 12 (sock-common-skc-rcv-saddr sk))
      (setmap results 13 (sock-common-skc-daddr sk))
      (setmap results 14 (sock-common-skc-family sk))
      (setmap results 15 (core-ctx-load u16 0 trace_event_raw_inet_sock_set_state sport))
      (setmap results 16 (core-ctx-load u16 0 trace_event_raw_inet_sock_set_state family))
      (setmap results 31 1)))
  0)

(defprog wh-newtask (:type :tp-btf :section "tp_btf/task_newtask")
  (when (= (cast u32 (>> (get-current-pid-tgid) 32)) (getmap target 2))
    (let ((task (ctx u64 0)))                ; struct task_struct *: the verifier's BTF pointer
      (setmap results 20 (core-load i32 task 0 task_struct pid))
      (setmap results 21 (core-load i32 task 0 task_struct tgid))
      (setmap results 22 (core-load u64 task 0 task_struct real_parent))
      (setmap results 23 1)))
  0)
