;; expect: tests/errors/dotimes-bound.lisp:4:17: error: dotimes count 10000000 is out of range 0..1048576
(defprog p (:type :xdp)
  (let ((sum 0))
    (dotimes (i 10000000)
      (incf sum i))
    sum))
