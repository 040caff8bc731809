;; expect: tests/errors/case-clash-defun.lisp:3:8: error: function 'Twice' differs only in case from 'twice' at tests/errors/case-clash-defun.lisp:2:8; names match without regard to case (as Common Lisp reads them), so rename one
(defun twice (x) (* x 2))
(defun Twice (x) (+ x x))
