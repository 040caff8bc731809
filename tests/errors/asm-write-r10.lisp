;; expect: tests/errors/asm-write-r10.lisp:3:18: error: 'mov64' writes r10, the read-only frame pointer
(defprog p (:type :xdp)
  (asm () (mov64 r10 0))
  0)
