(defun down (n) (+ 1 (down (+ n 1))))
(down 0)
