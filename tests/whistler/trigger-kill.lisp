;;; trigger-kill.lisp — deftracepoint and fill-process-info on a real event: the suite attaches
;;; this program and runs `sh -c 'kill -0 $$'`; the shell's kill(own pid, 0) is seen with the
;;; tracepoint's own fields (pid, sig from tracefs) and the caller's pid, uid and comm.

(in-package #:whistler)
(deftracepoint syscalls/sys-enter-kill pid sig)
(defstruct info (pid u32) (uid u32) (ts u64) (comm (array u8 16)))
(defmap seen :type :array :key-size 4 :value-size 8 :max-entries 5)
(defprog on-kill (:type :tracepoint :section "tracepoint/syscalls/sys_enter_kill")
  (let ((i (make-info)))
    (fill-process-info i :pid-field info-pid :uid-field info-uid :timestamp-field info-ts
                         :comm-field info-comm-ptr :comm-size 16)
    ;; only a process probing itself: kill(getpid(), 0)
    (when (and (= (tp-sig) 0) (= (tp-pid) (info-pid i)))
      (setf (getmap seen 0) (tp-pid)
            (getmap seen 1) (info-pid i)
            (getmap seen 2) (info-uid i)
            (getmap seen 3) (load u32 (info-comm-ptr i) 0)
            (getmap seen 4) (if (> (info-ts i) 0) 1 0))))
  0)
