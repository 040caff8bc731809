;; expect: tests/errors/core-unknown-field.lisp:3:22: error: the kernel's struct task_struct has no field 'real_parnt'; did you mean real_parent?
(defprog p (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (-> (current-task) real_parnt tgid))
