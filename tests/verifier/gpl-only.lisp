;;; gpl-only.lisp — a GPL-only helper (probe-read-kernel) in a program that is not GPL.
;; expect: gpl-only 7:5 cannot call GPL-restricted function from non-GPL compatible program
;; hint: (:license "GPL")
(defprog peek (:type :tracepoint :section "tracepoint/syscalls/sys_enter_kill"
               :license "Proprietary")
  (let ((buf (stack-buffer 16)))
    (probe-read-kernel buf 8 0)
    0))
