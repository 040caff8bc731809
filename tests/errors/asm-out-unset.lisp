;; expect: tests/errors/asm-out-unset.lisp:3:16: error: asm's :out r3 is neither an input nor written by the block
(defprog p (:type :xdp)
  (asm () :out r3 (mov64 r0 1)))
