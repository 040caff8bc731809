;;; events.lisp — bench/events' producer: each getppid() of the process whose pid is in
;;; `target` writes a burst of 32 events, into the ring buffer or the perf buffer as `mode`
;;; says (0: ring, 1: perf), each with its pid, a sequence number, an address and the comm.
(defevent bench-event
  [:pid :u32] [:seq :u32] [:addr :ipv4] [:ret :i32] [:ns :u64] [:comm :char 16])

(defmap target :type :array :key u32 :value u32 :max-entries 2)
(defmap ring :type :ringbuf :max-entries (* 256 1024 1024) :event bench-event)
(defmap perf :type :perf-event-array :event bench-event)

(defprog burst (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (let ((pid (cast u32 (>> (get-current-pid-tgid) 32))))
    (when (= pid (getmap target 0))
      (let ((perf-mode (getmap target 1))
            (e (make-bench-event)))
        (setf (bench-event-pid e) pid
              (bench-event-addr e) #x0100007f
              (bench-event-ret e) -2
              (bench-event-ns e) (ktime-get-ns))
        (get-current-comm (bench-event-comm-ptr e) 16)
        (dotimes (i 32)
          (setf (bench-event-seq e) i)
          (if (= perf-mode 0)
              (ringbuf-output ring e (sizeof bench-event) 0)
              (perf-event-output ctx perf BPF_F_CURRENT_CPU e (sizeof bench-event)))))))
  0)
