;; expect: tests/errors/targs-unknown-lsm-hook.lisp:3:33: error: the kernel has no LSM hook 'file_opn' (no FUNC bpf_lsm_file_opn in /sys/kernel/btf/vmlinux); did you mean file_open?
;; an lsm program's hook is typed from bpf_lsm_HOOK
(defprog p (:type :lsm :section "lsm/file_opn")
  0)
