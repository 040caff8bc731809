;; expect: tests/errors/ctx-unknown-field-sk-lookup.lisp:3:15: error: unknown context field 'dst-port' for a :sk-lookup program (struct bpf_sk_lookup: sk family protocol remote-ip4 remote-ip6-0 remote-ip6-1 remote-ip6-2 remote-ip6-3 remote-port local-ip4 local-ip6-0 local-ip6-1 local-ip6-2 local-ip6-3 local-port ingress-ifindex)
(defprog steer (:type :sk-lookup)
  (if (= (ctx dst-port) 80) SK_DROP SK_PASS))
