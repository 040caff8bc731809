;; expect: tests/errors/asm-unknown-mnemonic.lisp:3:12: error: unknown instruction 'mvo64' in asm; did you mean mul64, mod64 or mov64?
(defprog p (:type :xdp)
  (asm () (mvo64 r0 1))
  0)
