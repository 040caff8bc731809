;;; tp-only.lisp — one tracepoint counter and a ring buffer, for `kiln run` and `kiln load`.
(defmap calls :type :array :key u32 :value u64 :max-entries 1)
(defmap events :type :ringbuf :max-entries 4096)

(defprog on-getppid (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (incf (getmap calls 0))
  (let ((pid-tgid (get-current-pid-tgid)))
    (ringbuf-output events (stack-addr pid-tgid) 8 0))
  0)
