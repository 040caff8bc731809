;; expect: tests/errors/asm-duplicate-label.lisp:3:27: error: label ':a' is defined twice in this asm
(defprog p (:type :xdp)
  (asm () :a (mov64 r0 1) :a)
  0)
