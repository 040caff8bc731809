;;; flood.lisp — for the exporter's load test (tests/suites/metrics.sh): a ring buffer record on
;;; every getresgid() call, a system call nothing else on the machine makes (the suite's paced
;;; tool makes it at a steady rate: a flood kiln run's event loop must keep up with while
;;; clients pester the exporter), the calls counted by the caller's comm (a name any process
;;; sets, bytes that are not UTF-8 included: served as a label value), and a log2 histogram of
;;; the low bits of the clock (a histogram's 66 lines, so that an answer takes a few KB).
(defevent call [:pid :u32] [:n :u32] [:comm :char 16])
(defmap events :type :ringbuf :max-entries (* 256 1024))
(defstruct caller (comm (array char 16)))
(defmap calls :type :hash :key caller :value u64 :max-entries 256)
(defmap spread :type :hash :key u32 :value u64 :max-entries 64 :display :log2-hist)

(defprog on-getresgid (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getresgid")
  (let ((c (make-caller)))
    (get-current-comm (caller-comm-ptr c) 16)
    (incf (getmap calls c)))
  (incf (getmap spread (log2 (logand (ktime-get-ns) #xfffff))))
  (with-event (e call events)
    (setf (call-pid e) (cast u32 (>> (get-current-pid-tgid) 32))
          (call-n e) (cast u32 (ktime-get-ns)))
    (get-current-comm (call-comm-ptr e) 16))
  0)
