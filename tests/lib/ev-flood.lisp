;;; ev-flood.lisp — a ring buffer record on every system call of every process, and a count of
;;; them in `sent`: read by a consumer whose printing makes system calls (`kiln run`), it
;;; refills as fast as it is read. A reader must still stop within a bounded time (test_event
;;; and cli.sh time it) and lose nothing by returning between polls (records + drops = sent).
(defevent sys-call [:pid :u32] [:nr :u32])
(defmap events :type :ringbuf :max-entries (* 256 1024))
(defmap sent :type :array :key u32 :value u64 :max-entries 1)

(defprog on-sys-enter (:type :tracepoint :section "tracepoint/raw_syscalls/sys_enter")
  (incf (getmap sent 0))
  (with-event (e sys-call events)
    (setf (sys-call-pid e) (cast u32 (>> (get-current-pid-tgid) 32))
          (sys-call-nr e) (cast u32 (ctx u64 8))))
  0)
