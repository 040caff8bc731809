;; an error at its place in this file
(defun f () (car 5))
(f)
