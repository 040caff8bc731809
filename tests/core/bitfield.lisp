;;; bitfield.lisp — bitfields of the test's client TCP socket, set with setsockopt before it
;;; connected: tcp_sock.nonagle (4 bits), thin_lto, recvmsg_inq, sock.sk_no_check_tx, and
;;; neighbours left 0 (repair, fastopen_connect). Twin of bitfield.bpf.c
;;; (BPF_CORE_READ_BITFIELD_PROBED).
(defmap results :type :array :key u32 :value u64 :max-entries 32)
(defmap target :type :array :key u32 :value u32 :max-entries 4)

(defprog core-bitfield (:type :tracepoint :section "tracepoint/sock/inet_sock_set_state")
  (when (and (= (ctx protocol) IPPROTO_TCP) (= (ctx oldstate) 2) (= (ctx newstate) 1)
             (= (ctx dport) (getmap target 1)))
    (let ((tp (kernel-ptr tcp_sock (ctx skaddr)))
          (sk (kernel-ptr sock (ctx skaddr))))
      (setmap results 0 (-> tp nonagle))
      (setmap results 1 (core-read tp tcp_sock thin_lto))
      (setmap results 2 (-> tp recvmsg_inq))
      (setmap results 3 (-> sk sk_no_check_tx))
      (setmap results 4 (-> tp repair))
      (setmap results 5 (core-read tp tcp-sock fastopen-connect))
      (setmap results 31 1)))
  0)
