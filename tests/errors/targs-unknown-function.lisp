;; expect: tests/errors/targs-unknown-function.lisp:3:43: error: the kernel has no function 'do_nanosleeep' (no FUNC do_nanosleeep in /sys/kernel/btf/vmlinux); did you mean do_nanosleep?
;; an fentry program's function must be in the kernel's BTF: its prototype types the arguments
(defprog on-sleep (:type :fentry :section "fentry/do_nanosleeep")
  0)
