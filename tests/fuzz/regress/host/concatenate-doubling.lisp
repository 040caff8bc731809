(let ((s "xxxxxxxxxxxxxxxx"))
  (dotimes (i 40) (setf s (concatenate (quote string) s s)))
  (length s))
