;; expect: tests/errors/ctx-setf-unknown-field.lisp:3:14: error: unknown context field 'priority-mark' for a :tc program (struct __sk_buff: len pkt-type mark queue-mapping protocol vlan-present vlan-tci vlan-proto priority ingress-ifindex ifindex tc-index cb0 cb1 cb2 cb3 cb4 hash tc-classid data data-end napi-id family remote-ip4 local-ip4 remote-ip6-0 remote-ip6-1 remote-ip6-2 remote-ip6-3 local-ip6-0 local-ip6-1 local-ip6-2 local-ip6-3 remote-port local-port data-meta tstamp wire-len gso-segs gso-size tstamp-type hwtstamp flow-keys sk)
(defprog p (:type :tc)
  (setf (ctx priority-mark) 7)
  TC_ACT_OK)
