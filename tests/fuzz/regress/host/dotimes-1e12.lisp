(dotimes (i 1000000000000) nil)
