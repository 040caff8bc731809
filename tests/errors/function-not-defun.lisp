;; expect: tests/errors/function-not-defun.lisp:5:27: error: (function NAME) takes the name of a defun: 'no-such' is not one
(defun take (i ctx) 0)
(defprog p (:type :xdp)
  (let ((acc (stack-buffer 8)))
    (bpf-loop 4 (function no-such) acc 0))
  XDP_PASS)
