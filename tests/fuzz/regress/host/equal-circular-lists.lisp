(let ((l (list 1)) (m (list 1)))
  (setf (cdr l) l)
  (setf (cdr m) m)
  (equal l m))
