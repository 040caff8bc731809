;; expect: tests/errors/asm-offset.lisp:3:29: error: offset out of range: it must be in -32768..32767
(defprog p (:type :xdp)
  (asm ((r1 1)) (ldxw r0 r1 40000))
  0)
