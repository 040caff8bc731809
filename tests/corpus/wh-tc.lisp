;; wh-tc — Whistler's context and packet forms in a tc classifier.
;; Proves: (ctx TYPE OFFSET) and ctx-load reads of __sk_buff, (setf (ctx mark) v) and
;; (setf (ctx u32 32) v) (priority by offset) — the harness compares the __sk_buff after each
;; run —, ctx-ptr passed to skb-load-bytes into a struct-alloc buffer, stack-addr of a
;; variable, parse-tcp with tc-data/tc-data-end, and with-udp, with-eth, with-ipv4 returning
;; TC_ACT_OK (not XDP_PASS) for short packets and falling through for other protocols.
(in-package #:whistler)
(defmap results :type :array :key-size 4 :value-size 8 :max-entries 16)

(defprog wh-tc (:type :tc :section "classifier")
  (incf (getmap results 0) (ctx u32 0))
  (incf (getmap results 1) (ctx-load u32 16))
  (setf (ctx mark) (+ (ctx len) 7))
  (setf (ctx u32 32) 3)
  (let ((buf (struct-alloc 16)))
    (when (= (skb-load-bytes (ctx-ptr) 0 buf 14) 0)
      (incf (getmap results 2) (eth-type buf))))
  (let ((x (ctx len)))
    (incf (getmap results 3) (load u32 (stack-addr x) 0)))
  (when-let ((tcp (parse-tcp (tc-data) (tc-data-end))))
    (incf (getmap results 4) (tcp-src-port tcp)))
  (with-udp (data data-end udp)
    (incf (getmap results 5) (udp-dst-port udp)))
  (with-eth (data data-end)
    (incf (getmap results 6) (eth-type data)))
  (with-ipv4 (data data-end ip)
    (incf (getmap results 7) (ipv4-ttl ip)))
  TC_ACT_UNSPEC)
