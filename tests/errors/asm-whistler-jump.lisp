;; expect: tests/errors/asm-whistler-jump.lisp:3:17: error: a jump in Whistler's asm leaves the instruction: the offset must be 0
(defprog p (:type :xdp)
  (asm #x05 0 0 3 0)
  0)
