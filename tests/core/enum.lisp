;;; enum.lisp — relocated constants, twin of enum.bpf.c: enum values and their existence,
;;; type existence and size, field existence, size and offset, the kernel's type id. The
;;; ___mine / ___fake flavours name what the kernel does not have. Indexes 2 and 3 (a flavour
;;; enum's values) are clang's only: kiln has local structs but no local enums, and a value
;;; the kernel's enum lacks is a compile error. Indexes 17-19 (core-type-matches) are kiln's
;;; only: clang 14 cannot write type_matches records.
(defmap results :type :array :key u32 :value u64 :max-entries 32)
(defmap target :type :array :key u32 :value u32 :max-entries 4)

(defstruct no_such_struct___mine (:preserve-access-index)
  (x i32))

(defstruct task_struct___fake (:preserve-access-index)
  (tgid i32)
  (no_such_field i32))

(defstruct task_struct___mism (:preserve-access-index)
  (pid u64))                           ; the kernel's pid is 4 bytes: the shapes do not match

(defprog core-enum (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (when (= (cast u32 (>> (get-current-pid-tgid) 32)) (getmap target 0))
    (setmap results 0 (core-enum-value bpf_map_type BPF_MAP_TYPE_RINGBUF))
    (setmap results 1 (core-enum-value-exists bpf_map_type BPF_MAP_TYPE_RINGBUF))
    (setmap results 4 (core-type-exists task_struct))
    (setmap results 5 (core-type-exists no_such_struct___mine))
    (setmap results 6 (core-type-size task-struct))
    (setmap results 7 (core-field-exists task_struct tgid))
    (setmap results 8 (core-field-exists task_struct___fake no_such_field))
    (setmap results 9 (core-field-size task_struct comm))
    (setmap results 10 (core-field-offset task_struct tgid))
    (setmap results 11 (core-type-id task_struct))
    (setmap results 12 (core-field-offset task_struct se nr_migrations))
    (setmap results 13 (core-field-exists task_struct___fake tgid))
    (setmap results 14 (core-type-id-local task_struct))   ; this object's own BTF id
    (setmap results 15 (core-field-signed task_struct tgid))
    (setmap results 16 (core-field-signed task_struct flags))
    (setmap results 17 (core-type-matches task_struct))
    (setmap results 18 (core-type-matches task_struct___mism))
    (setmap results 19 (core-type-matches no_such_struct___mine))
    (setmap results 31 1))
  0)
