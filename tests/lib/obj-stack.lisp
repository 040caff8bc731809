;;; obj-stack.lisp — test_stack's and the stack suite's program: on getppid() it records the
;;; kernel stack in `stacks` and the user stack in `ustacks`; `ids` slot 0 holds the kernel
;;; stack's id, slot 1 the user stack's, slot 2 the pid (tgid) that made the call. When slot 3 holds a
;;; pid, only that process's calls are recorded. A stack whose hash bucket holds another
;;; replaces it (BPF_F_REUSE_STACKID): the last call's stacks are the ones kept.
(defmap stacks :type :stack-trace :key u32 :value-size 1016 :max-entries 1024)
(defmap ustacks :type :stack-trace :key u32 :value-size 1016 :max-entries 1024)
(defmap ids :type :array :key u32 :value u64 :max-entries 4)

(defprog stack-getppid (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (let ((pid (>> (get-current-pid-tgid) 32)))
    (when (or (= (getmap ids 3) 0) (= (getmap ids 3) pid))
      (setf (getmap ids 0) (get-stackid ctx stacks BPF_F_REUSE_STACKID))
      (setf (getmap ids 1) (get-stackid ctx ustacks (logior BPF_F_USER_STACK BPF_F_REUSE_STACKID)))
      (setf (getmap ids 2) pid)))
  0)
