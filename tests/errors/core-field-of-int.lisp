;; expect: tests/errors/core-field-of-int.lisp:3:26: error: cannot take field 'tgid' of pid: an integer, not a struct
(defprog p (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (-> (current-task) pid tgid))
