;;; redirect.lisp — socket redirection that kiln run sets up alone: a sock-ops program puts
;;; every IPv4 TCP socket its cgroup establishes into `socks`, keyed by its local port, and an
;;; sk_msg program on them sends what is written to the server on port 7101 into the receive
;;; queue of the server side of port 7102 instead: bytes sent on one connection arrive on the
;;; other (progtypes.sh: kiln run --cgroup).

(defmap socks :type :sockhash :key u32 :value u64 :max-entries 64)
(defmap runs :type :array :key u32 :value u64 :max-entries 2)

(defprog add-socket (:type :sock-ops)
  (let ((op (ctx op)))
    (when (and (= (ctx family) AF_INET)
               (or (= op BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB) (= op BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB)))
      (incf (getmap runs 0))
      (let ((key (stack-buffer 4)))
        (store u32 key 0 (ctx local-port))
        (sock-hash-update ctx socks key BPF_ANY))))
  1)

(defprog cross-over (:type :sk-msg)
  (if (= (ntohl (ctx remote-port)) 7101)
      (let ((key (stack-buffer 4)))
        (incf (getmap runs 1))
        (store u32 key 0 7102)
        (msg-redirect-hash ctx socks key BPF_F_INGRESS))
      SK_PASS))
