;; expect: tests/errors/defun-six-args.lisp:2:10: error: defun 'f' has 6 arguments; BPF functions take at most 5
(defun f (a b c d e g) (+ a b c d e g))
