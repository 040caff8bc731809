;; expect: tests/errors/asm-bare-mnemonic.lisp:3:24: error: 'exit' alone is a label; the instruction is written (exit), a label so named :exit
(defprog p (:type :xdp)
  (asm () (mov64 r0 1) exit)
  0)
