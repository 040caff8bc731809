;; expect: tests/errors/ctx-unknown-field.lisp:3:8: error: unknown context field 'packet-length' for a :xdp program (struct xdp_md: data data-end data-meta ingress-ifindex rx-queue-index egress-ifindex)
(defprog p (:type :xdp)
  (ctx packet-length))
