;; expect: tests/errors/core-unknown-enum-value.lisp:3:33: error: the kernel's enum bpf_map_type has no value 'BPF_MAP_TYPE_RINGBUFF'; did you mean BPF_MAP_TYPE_RINGBUF?
(defprog p (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (core-enum-value bpf_map_type BPF_MAP_TYPE_RINGBUFF))
