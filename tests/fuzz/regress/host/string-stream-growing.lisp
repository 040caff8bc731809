(let ((s (with-output-to-string (o) (dotimes (i 100000) (format o "~a" (make-array 100))))))
  (length s))
