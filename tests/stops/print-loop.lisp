;; stops.sh: a session that prints line after line, its program attached, until Ctrl-C, which
;; its handler-case catches to print a last line, as Whistler's fork-tracker does. Run into a
;; pipe nobody reads, Ctrl-C and SIGTERM must still end it within a second.
(with-bpf-session ()
  (bpf:map stop-forks :type :array :key-size 4 :value-size 8 :max-entries 1)
  (bpf:prog stop-on-fork (:type :tracepoint :section "tracepoint/sched/sched_process_fork" :license "GPL")
    (incf (getmap stop-forks 0))
    0)
  (bpf:attach stop-on-fork "tracepoint/sched/sched_process_fork")
  (handler-case (loop (format t "forks so far: ~a~%" (bpf:map-ref stop-forks 0)))
    (sb-sys:interactive-interrupt ()
      (format t "~a forks in all~%" (bpf:map-ref stop-forks 0)))))
