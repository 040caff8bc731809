;;; syscount.lisp — count openat() calls per process id with a tracepoint.
;;; Attach by section: tracepoint/syscalls/sys_enter_openat. The map is pinned by name, so
;;; libbpf and bpftool users share it at /sys/fs/bpf/opens.

(defmap opens :type :lru-hash :key u32 :value u64 :max-entries 1024 :pinning :by-name)

(defprog count-openat (:type :tracepoint :section "tracepoint/syscalls/sys_enter_openat")
  (let ((pid (>> (get-current-pid-tgid) 32)))
    (incf (getmap opens pid))
    0))
