;;; swapped.lisp — compiled against a kernel BTF that test_core writes, not the running
;;; kernel's (with --btf FILE and kiln_object_opts.btf_path): its task_struct is 64
;;; bytes with real_parent at 0, comm at 8, tgid at 24 and pid at 28, and its enum
;;; bpf_map_type has BPF_MAP_TYPE_RINGBUF = 99. kiln writes those offsets and values into the
;;; object; every value read must still be the running kernel's once libbpf relocated them.
;;; No clang twin: the values are checked against the truth (the child, the kernel's BTF).
(defmap results :type :array :key u32 :value u64 :max-entries 32)
(defmap target :type :array :key u32 :value u32 :max-entries 4)

(defprog core-swapped (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (when (= (cast u32 (>> (get-current-pid-tgid) 32)) (getmap target 0))
    (let ((task (current-task))
          (buf (stack-buffer 16)))
      (setmap results 0 (-> task tgid))
      (setmap results 1 (-> task pid))
      (setmap results 2 (-> task real_parent tgid))
      (setmap results 3 (core-read-str buf 16 task task_struct comm))
      (setmap results 4 (load u64 buf 0))
      (setmap results 5 (load u64 buf 8))
      (setmap results 6 (core-enum-value bpf_map_type BPF_MAP_TYPE_RINGBUF))
      (setmap results 7 (core-type-size task_struct))
      (setmap results 8 (core-field-offset task_struct tgid))
      (setmap results 9 (core-field-exists task_struct comm))
      (setmap results 31 1)))
  0)
