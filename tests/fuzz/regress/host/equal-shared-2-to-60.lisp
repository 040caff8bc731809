(let ((x (list 1 1)) (y (list 1 1)))
  (dotimes (i 60) (setf x (list x x)) (setf y (list y y)))
  (equal x y))
