;; expect: tests/errors/core-missing-btf.lisp:2:13: error: cannot read kernel BTF from /nonexistent/vmlinux: No such file or directory
(kernel-btf "/nonexistent/vmlinux")
(defprog p (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (-> (current-task) pid))
