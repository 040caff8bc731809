(let ((v (list 1 2))) (setf (gethash 1 v) 3))
