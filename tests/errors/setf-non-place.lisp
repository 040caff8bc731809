;; expect: tests/errors/setf-non-place.lisp:3:9: error: setf: not a place (a variable, (getmap M K), (load ...), (ctx F) or a struct accessor): (+ 1 2)
(defprog p (:type :xdp)
  (setf (+ 1 2) 3))
