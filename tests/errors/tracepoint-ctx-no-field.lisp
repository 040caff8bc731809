;; expect: tests/errors/tracepoint-ctx-no-field.lisp:3:85: error: tracepoint syscalls/sys_enter_openat has no field 'filenam'; did you mean filename? Its fields: __syscall_nr dfd filename flags mode
;; (ctx FIELD) looks a tracepoint's field up as deftracepoint and kiln trace's args->FIELD do, with one message
(defprog p (:type :tracepoint :section "tracepoint/syscalls/sys_enter_openat") (ctx filenam))
