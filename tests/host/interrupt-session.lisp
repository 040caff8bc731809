;; Ctrl-C nobody catches inside a session: the session still detaches and closes everything
(with-bpf-session ()
  (bpf:map forks :type :array :key-size 4 :value-size 8 :max-entries 1)
  (bpf:prog on-fork (:type :tracepoint :section "tracepoint/sched/sched_process_fork" :license "GPL")
    (incf (getmap forks 0))
    0)
  (bpf:attach on-fork "tracepoint/sched/sched_process_fork")
  (format t "attached~%")
  (loop (sleep 1)))
