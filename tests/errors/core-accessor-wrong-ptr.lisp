;; expect: tests/errors/core-accessor-wrong-ptr.lisp:5:20: error: task-struct-pid takes a pointer to task_struct, and this one points at mm_struct; cast it with (as-task-struct p) if that is meant
(import-kernel-struct task-struct pid)
(import-kernel-struct mm-struct mmap-base)
(defprog p (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (task-struct-pid (as-mm-struct (current-task))))
