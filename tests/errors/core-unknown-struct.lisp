;; expect: tests/errors/core-unknown-struct.lisp:3:29: error: the kernel has no struct or union 'task_strct' (in /sys/kernel/btf/vmlinux); did you mean task_struct?
(defprog p (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (core-read (current-task) task_strct pid))
