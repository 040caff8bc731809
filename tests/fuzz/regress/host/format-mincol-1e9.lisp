(let () (format nil "~1000000000a" 1) (format nil "~1000000000%"))
