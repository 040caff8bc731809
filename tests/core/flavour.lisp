;;; flavour.lisp — a local task_struct___mine whose fields stand at offsets of its own
;;; (padding first, then the fields in another order than the kernel's), read after libbpf
;;; relocated every access to the kernel's layout. Twin of flavour.bpf.c.
(defmap results :type :array :key u32 :value u64 :max-entries 32)
(defmap target :type :array :key u32 :value u32 :max-entries 4)

(defstruct task_struct___mine (:preserve-access-index)
  (pad0 u64)
  (real_parent (* task_struct___mine))
  (pad1 u32)
  (tgid i32)
  (pid i32)
  (pad2 u8))

(defprog core-flavour (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (when (= (cast u32 (>> (get-current-pid-tgid) 32)) (getmap target 0))
    (let ((me (kernel-ptr task_struct___mine (get-current-task))))
      (setmap results 0 (-> me tgid))
      (setmap results 1 (core-read me task_struct___mine pid))
      (setmap results 2 (-> me real_parent tgid))
      (setmap results 3 (core-read (current-task) task_struct___mine real_parent real_parent tgid))
      (setmap results 4 (core-field-offset task_struct___mine tgid))
      (setmap results 31 1)))
  0)
