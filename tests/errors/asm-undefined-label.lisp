;; expect: tests/errors/asm-undefined-label.lisp:3:27: error: label ':done' is not defined in this asm (a jump may not leave it)
(defprog p (:type :xdp)
  (asm ((r1 1)) (jeq r1 0 :done))
  0)
