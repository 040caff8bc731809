;; mapprogs.lisp — the map types whose programs need something from outside first, for
;; tests/unit/test_mapprogs.c: a sockops program puts every connection it sees established
;; into a sockmap (by direction) and a sockhash (by local port); XDP programs redirect through
;; a devmap-hash and an xskmap, falling back to XDP_PASS when the slot is empty; another drains
;; the records user space wrote into a user ring buffer, summing them through a callback.
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

(defmap requests :type :user-ringbuf :max-entries 4096)
(defmap drained :type :array :key u32 :value u64 :max-entries 2)

(defun take (dynptr ctx)
  (let ((v (stack-buffer 8)))
    (when (= 0 (dynptr-read v 8 dynptr 0 0))
      (store u64 ctx 0 (+ (load u64 ctx 0) (load u64 v 0)))))
  0)

;; drained[0]: the records taken, drained[1]: their sum
(defprog drain (:type :xdp)
  (let ((acc (stack-buffer 8)))
    (incf (getmap drained 0) (user-ringbuf-drain requests #'take acc 0))
    (incf (getmap drained 1) (load u64 acc 0)))
  XDP_PASS)

;; a SO_REUSEPORT group of UDP sockets: a datagram of even length (UDP header included) goes
;; to the socket in slot 0, an odd one to slot 1
(defmap group :type :reuseport-sockarray :key u32 :value-size 8 :max-entries 2)

(defprog pick (:type :sk-reuseport)
  (let ((k u32 (logand (ctx len) 1)))
    (sk-select-reuseport ctx group (stack-addr k) 0))
  SK_PASS)
