(let ((l (list 1 2)))
  (setf (cdr (cdr l)) l)
  (apply (function +) l))
