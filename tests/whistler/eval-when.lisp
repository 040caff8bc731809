;;; eval-when at the top level, as Whistler's runqlat writes it: kiln compile runs the body at
;;; compile time. probe-file picks a branch; eval of a quoted kiln form joins the program; a
;;; form that cannot be collected (a tracepoint the kernel does not have) is an error that
;;; handler-case catches, and the fallback is taken. The program returns what was chosen:
;;; 3 (tracefs has sched_switch) + 40 (the missing tracepoint fell back) = 43; whistler.sh runs
;;; it and checks.
(in-package #:whistler)

(eval-when (:compile-toplevel :load-toplevel :execute)
  (if (or (probe-file "/sys/kernel/tracing/events/sched/sched_switch/format")
          (probe-file "/sys/kernel/debug/tracing/events/sched/sched_switch/format"))
      (eval '(defconstant +tracefs+ 3))
      (eval '(defconstant +tracefs+ 1)))
  (handler-case
      (eval '(deftracepoint sched/no-such-tracepoint-here a b))
    (error ()
      (eval '(progn
               (defconstant +fallback+ 40)
               (defmacro chosen () '(+ +tracefs+ +fallback+)))))))

(defprog eval-when-choice (:type :xdp)
  (chosen))
