(let ((x (list 1 1)))
  (dotimes (i 60) (setf x (list x x)))
  (print x))
