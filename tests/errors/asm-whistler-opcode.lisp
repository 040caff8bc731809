;; expect: tests/errors/asm-whistler-opcode.lisp:3:8: error: unknown or unsupported opcode 0xff in asm
(defprog p (:type :xdp)
  (asm #xff 0 0 0 0)
  0)
