;; expect: tests/errors/deftracepoint-no-field.lisp:3:1: error: in macro 'deftracepoint' (defined at <prelude>:114): tracepoint syscalls/sys_enter_openat has no field 'filenam'; did you mean filename? Its fields: __syscall_nr dfd filename flags mode (at tests/errors/deftracepoint-no-field.lisp:3:44)
;; deftracepoint's field names are looked up as (ctx FIELD) and kiln trace's args->FIELD are, with one message
(deftracepoint "syscalls/sys_enter_openat" filenam)
(defprog p (:type :xdp) XDP_PASS)
