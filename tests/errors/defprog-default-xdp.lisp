;; expect: tests/errors/defprog-default-xdp.lisp:3:22: error: section "tc" does not suit a :xdp program (expected "xdp...")
;; a defprog without :type is an XDP program, as in Whistler; this section is not one
(defprog p (:section "tc") XDP_PASS)
