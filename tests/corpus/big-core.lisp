;; big-core — (bench) a CO-RE process-ancestry reader as process monitors write it: from the
;; current task (a local view of task_struct with only the fields read, relocated by libbpf
;; to the running kernel's layout) the pid, tgid, comm and the group leader's pid, then the
;; chain of real_parent up to 8 levels: its depth (stopping at pid 1 or a null parent), the
;; sum of the ancestors' tgids and the first byte of each one's comm. Run as a raw
;; tracepoint program on the harness's own task, so both twins read the same process.
;; Proves: core-read chains through pointers in a loop, core-read-str into a stack buffer,
;; relocations against the kernel's BTF for both twins, the values read as clang reads them.
;; twin-args: --ctx 00000000000000000000000000000000 --no-default-inputs
(defstruct task_struct___big (:preserve-access-index)
  (pid i32)
  (tgid i32)
  (real_parent (* task_struct___big))
  (group_leader (* task_struct___big))
  (comm (array char 16)))
(defconstant max-depth 8)
;; results: 0 pid, 1 tgid, 2 group leader pid, 3 comm bytes 0-7, 4 comm bytes 8-15,
;; 5 comm length, 6 ancestry depth, 7 sum of ancestors' tgids, 8 sum of their comms' first
;; bytes, 9 runs
(defmap results :type :array :key u32 :value u64 :max-entries 10)

(defprog big-core (:type :raw-tracepoint :section "raw_tp/sched_process_exec")
  (let ((task (current-task))
        (comm (stack-buffer 16))
        (depth 0)
        (tgids 0)
        (firsts 0))
    (setf (getmap results 0) (core-read task task_struct___big pid)
          (getmap results 1) (core-read task task_struct___big tgid)
          (getmap results 2) (core-read task task_struct___big group_leader pid))
    (setf (getmap results 5) (core-read-str comm 16 task task_struct___big comm))
    (setf (getmap results 3) (load u64 comm 0)
          (getmap results 4) (load u64 comm 8))
    (let ((p (core-read task task_struct___big real_parent))
          (done 0))
      (dotimes (i max-depth)
        (when (and (= done 0) (/= p 0))
          (setf depth (+ depth 1)
                tgids (+ tgids (core-read p task_struct___big tgid))
                firsts (+ firsts (core-read p task_struct___big comm 0)))
          (if (= (core-read p task_struct___big pid) 1)
              (setf done 1)
              (setf p (core-read p task_struct___big real_parent))))))
    (setf (getmap results 6) depth
          (getmap results 7) tgids
          (getmap results 8) firsts)
    (incf (getmap results 9))
    0))
