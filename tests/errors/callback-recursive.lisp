;; expect: tests/errors/callback-recursive.lisp:2:1: error: function 'again' is recursive (through 'again'); BPF has no recursion
(defun again (i ctx)
  (bpf-loop 2 #'again ctx 0)
  0)
(defprog p (:type :xdp)
  (let ((acc (stack-buffer 8)))
    (bpf-loop 4 #'again acc 0))
  XDP_PASS)
