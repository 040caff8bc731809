;;; profile.lisp — a sampling profiler: 99 times a second on every CPU (kiln run's --freq,
;;; default 99), the running process's kernel and user stacks are counted by pid, comm and
;;; stack. At the end `kiln run` prints the top stacks by count, symbolized (kernel functions
;;; from kallsyms, user ones from the process's ELF files), with the command that ran them.
;;; `kiln run examples/profile.lisp --duration 5`; add --json for JSON lines.

(defstruct sample
  (pid u32)
  (kstack kstack)
  (ustack ustack)
  (comm (array char 16)))

(defmap stacks :type :stack-trace :key u32 :value-size (* 8 127) :max-entries 4096)
(defmap counts :type :hash :key sample :value u64 :max-entries 4096)

(defprog profile (:type :perf-event)
  (let ((s (make-sample)))
    (setf (sample-pid s) (cast u32 (>> (get-current-pid-tgid) 32))
          (sample-kstack s) (get-stackid ctx stacks 0)
          (sample-ustack s) (get-stackid ctx stacks BPF_F_USER_STACK))
    (get-current-comm (sample-comm-ptr s) 16)
    (incf (getmap counts s)))
  0)
