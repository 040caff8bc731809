;; expect: tests/errors/defprog-no-type.lisp:2:12: error: defprog 'p' needs :type (:xdp, :tc, :tracepoint, ...)
(defprog p (:section "xdp") XDP_PASS)
