;;; sock.lisp — the client side of the test's loopback TCP connect (SYN_SENT -> ESTABLISHED,
;;; destination port in target[1]), its struct sock read from the tracepoint's skaddr:
;;; members of sock_common inside anonymous structs and unions. Twin of sock.bpf.c.
(defmap results :type :array :key u32 :value u64 :max-entries 32)
(defmap target :type :array :key u32 :value u32 :max-entries 4)

(defprog core-sock (:type :tracepoint :section "tracepoint/sock/inet_sock_set_state")
  (when (and (= (ctx protocol) IPPROTO_TCP) (= (ctx oldstate) 2) (= (ctx newstate) 1)
             (= (ctx dport) (getmap target 1)))
    (let ((sk (kernel-ptr sock (ctx skaddr))))
      (setmap results 0 (-> sk __sk_common skc_num))
      (setmap results 1 (-> sk __sk_common skc_dport))
      (setmap results 2 (core-read sk sock __sk_common skc_rcv_saddr))
      (setmap results 3 (core-read sk sock __sk_common skc_daddr))
      (setmap results 4 (-> sk __sk_common skc_family))
      (setmap results 5 (-> sk sk_peek_off))              ; an int, -1: sign-extended
      (setmap results 31 1)))
  0)
