;; expect: tests/errors/core-flavour-no-field.lisp:4:48: error: task_struct___mine has no field 'tgid'; did you mean pid?
(defstruct task_struct___mine (:preserve-access-index) (pid i32))
(defprog p (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (core-read (current-task) task_struct___mine tgid))
