;; expect: tests/errors/unterminated-string.lisp:2:33: error: unterminated string
(defprog p (:type :xdp :section "xdp)
  XDP_PASS)
