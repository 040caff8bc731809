;; expect: tests/errors/asm-div-zero.lisp:3:27: error: division by the constant 0 in 'div64' (the kernel refuses it)
(defprog p (:type :xdp)
  (asm ((r1 1)) (div64 r1 0))
  0)
