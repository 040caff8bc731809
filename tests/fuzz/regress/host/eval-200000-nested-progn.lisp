(let ((f 1))
  (dotimes (i 200000) (setf f (list (quote progn) f)))
  (eval f))
