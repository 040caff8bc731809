(let ((l (list 1 2 3 4 5 6 7 8)))
 (dotimes (i 19) (setf l (append l l)))
 (dotimes (i 100000) (length l)))
