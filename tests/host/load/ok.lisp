;; loaded by tests/host/load.lisp
(defun twice (x) (* 2 x))
(defparameter *loaded* t)
