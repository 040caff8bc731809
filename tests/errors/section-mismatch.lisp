;; expect: tests/errors/section-mismatch.lisp:2:38: error: section "xdp" does not suit a :tc program (expected "tc...")
(defprog ingress (:type :tc :section "xdp")
  TC_ACT_OK)
