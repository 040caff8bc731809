;; expect: tests/errors/core-untyped-arrow.lisp:4:9: error: -> needs a typed kernel pointer (from current-task, a pointer field, a tp_btf argument or (kernel-ptr TYPE x)); name the type with (core-read PTR TYPE FIELD ...)
(defprog p (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (let ((t1 (get-current-pid-tgid)))
    (-> t1 pid)))
