(defun two (a b) (list a b))
(format t "~a~%" (two 1 2))
(two 1)
