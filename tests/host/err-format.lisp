(format t "~a ~a~%" "only one")
