;; expect: tests/errors/asm-input-reg.lisp:3:10: error: an asm input goes into a register r0-r9, not r10
(defprog p (:type :xdp)
  (asm ((r10 1)) (mov64 r0 1))
  0)
