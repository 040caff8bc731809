;;; task.lisp — CO-RE reads of the current task (the test's child, its comm set with
;;; PR_SET_NAME and its oom_score_adj set to 321 by the test), twin of task.bpf.c: the same
;;; values at the same indexes of `results`; index 31 is written last.
(defmap results :type :array :key u32 :value u64 :max-entries 32)
(defmap target :type :array :key u32 :value u32 :max-entries 4)

(defprog core-task (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (when (= (cast u32 (>> (get-current-pid-tgid) 32)) (getmap target 0))
    (let ((task (current-task))
          (buf (stack-buffer 16))
          (buf2 (stack-buffer 16))
          (exe (stack-buffer 16))
          (lim (stack-buffer 16)))
      (setmap results 0 (core-read task task_struct tgid))
      (setmap results 1 (-> task pid))
      (setmap results 2 (-> task real-parent tgid))
      (setmap results 3 (core-read task task_struct real_parent real_parent tgid))
      (setmap results 4 (-> task real_parent real_parent real_parent tgid))
      (setmap results 5 (-> task se nr_migrations))
      (setmap results 6 (core-read-str buf 16 task task_struct comm))
      (setmap results 7 (load u64 buf 0))
      (setmap results 8 (load u64 buf 8))
      (setmap results 9 (core-read-into buf2 task task_struct comm))
      (setmap results 10 (load u64 buf2 0))
      (setmap results 11 (load u64 buf2 8))
      (setmap results 12 (-> task signal oom_score_adj))   ; a short
      (setmap results 13 (core-read task task-struct group-leader pid))
      ;; a char * at the end of a chain through pointers, embedded structs and an anonymous
      ;; union (qstr's hash_len): the string it points at
      (setmap results 14 (core-read-str exe 16 task task_struct mm exe_file f_path dentry d_name name))
      (setmap results 15 (load u64 exe 0))
      (setmap results 16 (load u64 exe 8))
      ;; an index in the chain: signal->rlim[RLIMIT_NOFILE], set by the test with prlimit
      (setmap results 17 (core-read task task_struct signal rlim 7 rlim_cur))
      (setmap results 18 (core-read-into lim task task_struct signal rlim 7))
      (setmap results 19 (load u64 lim 0))
      (setmap results 20 (load u64 lim 8))
      (setmap results 21 (core-read task task_struct comm 3))
      (setmap results 31 1)))
  0)
