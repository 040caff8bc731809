(let ((l (list 1 2)))
  (setf (car l) l)
  (print l))
