;; sk-storage.lisp — local storage per socket, used by tests/unit/test_storage.c: each receive
;; on a TCP socket (tcp_rcv_space_adjust runs in tcp_recvmsg) counts into that socket's own
;; storage, created on first use; a send from the socket deletes it. User space reads a
;; socket's counter with the socket's fd as the key.
(defmap rcvs :type :sk-storage :value u64)

(defprog on-rcv (:type :tp-btf :section "tp_btf/tcp_rcv_space_adjust")
  (let ((p (sk-storage-get rcvs sk 0 BPF_LOCAL_STORAGE_GET_F_CREATE)))
    (when p
      (atomic-add p 0 1)))
  0)

(defprog on-send (:type :tp-btf :section "tp_btf/tcp_sendmsg_locked")
  (sk-storage-delete rcvs sk)
  0)
