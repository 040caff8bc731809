;;; tcpconnect.lisp — every TCP connect on the system: the process that made it (pid and
;;; command), the source and destination addresses and ports, IPv4 and IPv6. The socket is a
;;; `struct sock *` in the kernel; its addresses and ports are read from it with CO-RE
;;; (sk->__sk_common.skc_daddr and the rest, relocated by libbpf to the running kernel's layout).
;;; `kiln run examples/tcpconnect.lisp [--json]`.
;;;
;;; One tracepoint, sock/inet_sock_set_state, sees the connect twice. Its change to SYN_SENT
;;; fires inside connect(), in the connecting process, so the pid and command are taken there;
;;; but the kernel picks the source port just after it, so the event is sent at the socket's
;;; next change (to ESTABLISHED when the peer answers, or to CLOSE when it refuses), when the
;;; port is known and which may run in any process's context: what was taken at SYN_SENT is
;;; parked meanwhile by socket address.

(defconstant af-inet 2)
(defconstant af-inet6 10)
(defconstant ipproto-tcp 6)
(defconstant tcp-syn-sent 2)

(defevent connect4
  [:pid :u32] [:sport :u16] [:dport :u16] [:saddr :ipv4] [:daddr :ipv4] [:comm :char 16])
(defevent connect6
  [:pid :u32] [:sport :u16] [:dport :u16] [:saddr :ipv6] [:daddr :ipv6] [:comm :char 16])

(defstruct connecting (pid u32) (comm (array u8 16)))

(defmap pending :type :hash :key u64 :value connecting :max-entries 10240)
(defmap connects4 :type :ringbuf :max-entries (* 256 1024))
(defmap connects6 :type :ringbuf :max-entries (* 256 1024))

(defprog tcp-state (:type :tracepoint :section "tracepoint/sock/inet_sock_set_state")
  (let ((skaddr (ctx skaddr)))
    (when (= (ctx protocol) ipproto-tcp)
      (cond
        ((= (ctx newstate) tcp-syn-sent)
         (let ((c (make-connecting)))
           (setf (connecting-pid c) (cast u32 (>> (get-current-pid-tgid) 32)))
           (get-current-comm (connecting-comm-ptr c) 16)
           (map-update-ptr pending (stack-addr skaddr) c BPF_ANY)))
        ((= (ctx oldstate) tcp-syn-sent)
         (when-let ((c (map-lookup pending skaddr)))
           (let ((sk (kernel-ptr sock skaddr)))
             (if (= (ctx family) af-inet)
                 (with-event (e connect4 connects4)
                   (setf (connect4-pid e) (connecting-pid c)
                         (connect4-sport e) (-> sk __sk_common skc_num)          ; host order
                         (connect4-dport e) (ntohs (-> sk __sk_common skc_dport))
                         (connect4-saddr e) (-> sk __sk_common skc_rcv_saddr)
                         (connect4-daddr e) (-> sk __sk_common skc_daddr))
                   (memcpy e (offsetof connect4 comm) c (offsetof connecting comm) 16))
                 (when (= (ctx family) af-inet6)
                   (with-event (e connect6 connects6)
                     (setf (connect6-pid e) (connecting-pid c)
                           (connect6-sport e) (-> sk __sk_common skc_num)
                           (connect6-dport e) (ntohs (-> sk __sk_common skc_dport)))
                     (core-read-into (connect6-saddr-ptr e) sk sock __sk_common skc_v6_rcv_saddr in6_u u6_addr32)
                     (core-read-into (connect6-daddr-ptr e) sk sock __sk_common skc_v6_daddr in6_u u6_addr32)
                     (memcpy e (offsetof connect6 comm) c (offsetof connecting comm) 16)))))
           (delmap pending skaddr))))))
  0)
