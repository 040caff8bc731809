(let () (make-array 100000000000))
