;; a decoding ring consumer polled until Ctrl-C, which handler-case catches, in a function the
;; file calls (the shape of the book's inline session, on a tracepoint): one line per exec
(defstruct exec-note (pid u32) (stamp u64))
(defun watch-execs ()
  (with-bpf-session ()
    (bpf:map notes :type :ringbuf :max-entries 4096)
    (bpf:prog on-exec (:type :tracepoint :section "tracepoint/sched/sched_process_exec" :license "GPL")
      (with-ringbuf (n notes (sizeof exec-note))
        (setf (exec-note-pid n) (cast u32 (ash (get-current-pid-tgid) -32))
              (exec-note-stamp n) (ktime-get-ns)))
      0)
    (bpf:attach on-exec)
    (format t "waiting~%")
    (with-decoding-ring-consumer (r (bpf-session-map 'notes) #'decode-exec-note
                                    (lambda (n) (format t "exec pid=~d~%" (exec-note-record-pid n))))
      (handler-case (loop (ring-poll r :timeout-ms 500))
        (sb-sys:interactive-interrupt () (format t "~&stopped~%"))))))
(watch-execs)
