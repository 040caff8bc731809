;;; sockmap.lisp — socket redirection, run by progtypes.sh through tests/harness/ptlive.c:
;;; bytes that arrive on the socket in slot 0 of `socks` leave again from the socket in slot 1
;;; (sk_skb parser and verdict), and a message sent on the socket in slot 0 of `msgs` lands
;;; in the receive queue of the one in slot 1 (sk_msg). Each counts its runs in `runs`.

(defmap socks :type :sockmap :key u32 :value u32 :max-entries 2)
(defmap msgs :type :sockhash :key u32 :value u32 :max-entries 2)
(defmap runs :type :array :key u32 :value u64 :max-entries 4)

(defprog parse-whole (:type :sk-skb :section "sk_skb/stream_parser")
  (incf (getmap runs 0))
  (ctx len))

(defprog to-slot-1 (:type :sk-skb :section "sk_skb/stream_verdict")
  (incf (getmap runs 1))
  (sk-redirect-map ctx socks 1 0))

(defprog msg-to-slot-1 (:type :sk-msg)
  (incf (getmap runs 2))
  (let ((key (stack-buffer 4)))
    (store u32 key 0 1)
    (msg-redirect-hash ctx msgs key BPF_F_INGRESS)))
