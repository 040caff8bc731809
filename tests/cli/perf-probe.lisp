;;; perf-probe.lisp — getppid() calls as events in a perf buffer, for `kiln run`'s decoding,
;;; and in a ring buffer no layout is declared for (the perf map's is told by the (sizeof probe)
;;; given with its records; the ring's size is a bare 24), whose records kiln run decodes by the
;;; only struct of their size.
(defevent probe [:pid :u32] [:addr :ipv4] [:comm :char 16])
(defmap probes :type :perf-event-array)
(defmap plain :type :ringbuf :max-entries 4096)

(defprog on-getppid (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (let ((p (make-probe)))
    (setf (probe-pid p) (cast u32 (>> (get-current-pid-tgid) 32))
          (probe-addr p) #x0101a8c0)
    (get-current-comm (probe-comm-ptr p) 16)
    (perf-event-output ctx probes BPF_F_CURRENT_CPU p (sizeof probe))
    (ringbuf-output plain p 24 0))
  0)
