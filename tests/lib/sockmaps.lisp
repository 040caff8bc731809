;; sockmaps.lisp — the map types whose programs need a kernel object to hold, for
;; tests/unit/test_mapprogs.c: a sockops program puts every connection it sees established
;; into a sockmap (by direction) and a sockhash (by local port); XDP programs redirect through
;; a devmap-hash and an xskmap, falling back to XDP_PASS when the slot is empty.
(defmap socks :type :sockmap :key-size 4 :value-size 8 :max-entries 2)
(defmap by-port :type :sockhash :key u32 :value-size 8 :max-entries 8)
(defmap ports :type :devmap-hash :key u32 :value-size 4 :max-entries 4)
(defmap xsks :type :xskmap :max-entries 4)

(defprog on-established (:type :sock-ops)
  (let ((op (ctx op)))
    (when (or (= op BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB) (= op BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB))
      (let ((k u32 (if (= op BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB) 0 1))
            (port u32 (ctx local-port)))
        (sock-map-update ctx socks (stack-addr k) BPF_ANY)
        (sock-hash-update ctx by-port (stack-addr port) BPF_ANY))))
  1)

(defprog to-port (:type :xdp)
  (redirect-map ports 1 XDP_PASS))

(defprog to-xsk (:type :xdp)
  (redirect-map xsks 0 XDP_PASS))
