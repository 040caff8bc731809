(print #())
(let ((v #())) (length v))
