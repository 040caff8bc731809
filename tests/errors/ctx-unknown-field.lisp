;; expect: tests/errors/ctx-unknown-field.lisp:3:8: error: unknown context field 'packet-length' for a :xdp program (struct xdp_md)
(defprog p (:type :xdp)
  (ctx packet-length))
