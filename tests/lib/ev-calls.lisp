;;; ev-calls.lisp — events for test_event: every getppid() of one process (its pid set in
;;; `target` by the test) sends the same event through a ring buffer (with-event) and a perf
;;; buffer (perf-event-output), with a counter, an address field and its kernel stack. The
;;; seed's ConnectionEvent is here for its layout, read back from the BTF.

(defevent ConnectionEvent
  [:timestamp :u64] [:pid :u32] [:saddr :u32] [:daddr :u32]
  [:sport :u16] [:dport :u16] [:protocol :u8] [:direction :u8] [:padding :u8 2]
  [:comm :char 16])

(defevent call-event
  [:pid :u32] [:seq :u32] [:addr :ipv4] [:kstack :kstack] [:delta :i64] [:comm :char 16])

(defmap target :type :array :key u32 :value u32 :max-entries 1)
(defmap counter :type :array :key u32 :value u32 :max-entries 1)
(defmap stacks :type :stack-trace :key u32 :value-size (* 8 127) :max-entries 256)
(defmap calls :type :ringbuf :max-entries 4096)
(defmap perf-calls :type :perf-event-array :event call-event)
(defmap unused-ring :type :ringbuf :max-entries 4096 :event ConnectionEvent)

(defprog on-getppid (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (let ((pid (cast u32 (>> (get-current-pid-tgid) 32))))
    (when (= pid (getmap target 0))
      (let ((seq (getmap counter 0))
            (ks (get-stackid ctx stacks BPF_F_REUSE_STACKID)))
        (setmap counter 0 (+ seq 1))
        (with-event (e call-event calls)
          (setf (call-event-pid e) pid
                (call-event-seq e) seq
                (call-event-addr e) #x0100007f          ; 127.0.0.1 in network order
                (call-event-kstack e) ks
                (call-event-delta e) (- 0 (cast i64 seq)))
          (get-current-comm (call-event-comm-ptr e) 16))
        (let ((p (make-call-event)))
          (setf (call-event-pid p) pid
                (call-event-seq p) seq
                (call-event-addr p) #x0100007f
                (call-event-kstack p) ks
                (call-event-delta p) (- 0 (cast i64 seq)))
          (get-current-comm (call-event-comm-ptr p) 16)
          (perf-event-output ctx perf-calls BPF_F_CURRENT_CPU p (sizeof call-event))))))
  0)
