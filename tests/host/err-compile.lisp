;; a kiln compile error inside a session points at the file's own line and column
(with-bpf-session ()
  (bpf:map counts :type :array :key-size 4 :value-size 8 :max-entries 1)
  (bpf:prog trace (:type :tracepoint :section "tracepoint/sched/sched_process_fork" :license "GPL")
    (incf (getmap counts 0))
    (no-such-helper 1 2)
    0)
  (format t "never printed~%"))
