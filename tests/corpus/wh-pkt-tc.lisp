;; wh-pkt-tc — Whistler's packet library in tc classifiers.
;; Proves: with-packet, with-eth, with-ipv4, with-tcp and with-udp (and their with-tc-*
;; spellings) return TC_ACT_OK — tc's pass action, not XDP_PASS — for packets too short for
;; their headers, run their body for matching packets and fall through for others; tc-data
;; and tc-data-end; parse-eth, parse-ipv4, parse-tcp and parse-udp in when-let and if-let
;; chains, each later parse starting from the earlier one's pointer; header fields written to
;; (ctx mark) and (ctx priority) (the harness compares the __sk_buff after each run) and
;; returned as the verdict.
;; Crafted inputs as in wh-pkt-xdp: TCP SYN to port 9999 ttl 200; TCP ACK seq deadbeef with
;; payload; UDP to port 7; a 34-byte GRE packet; TCP FIN|ACK seq ffffffff; a 20-byte packet
;; of ethertype 88b5; an IPv4 TCP SYN to port 9999 cut after 6 bytes of its TCP header (40
;; bytes). (A 20-byte IPv4 runt, as in wh-pkt-xdp, is refused by the kernel for skb programs.)
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500002d1234400001060000ac1000010a00000204d201bbdeadbeef000000005010ffff0000000068656c6c6f
;; twin-args: --input 02000000000202000000000108004500002312344000801100000a010203c0a807099c400007000f000078797a7a793132
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --input 020000000002020000000001080045000028123440003f060000c0a807090a0102030050c738ffffffff000000005011ffff00000000
;; twin-args: --input 02000000000202000000000188b5010203040506
;; twin-args: --input 02000000000202000000000108004500002812344000090600000a0908070a00000115b3270f0000
(defmap results :type :array :key u32 :value u64 :max-entries 12)

(defprog pt-packet (:type :tc)
  (with-tc-packet (data data-end :min-len 34)
    (setf (ctx mark) (load u32 data 26))
    (incf (getmap results 0) (- data-end data))
    TC_ACT_SHOT))

(defprog pt-tcp (:type :tc)
  (with-tc-tcp (data data-end tcp)
    (incf (getmap results 1) (tcp-dst-port tcp))
    (setf (ctx mark) (tcp-seq tcp))
    (when (= (tcp-dst-port tcp) 9999)
      (return TC_ACT_SHOT))
    (when (logand (tcp-flags tcp) +tcp-ack+)
      (return TC_ACT_PIPE)))
  (incf (getmap results 2))
  TC_ACT_UNSPEC)

(defprog pt-udp (:type :tc)
  (with-udp (data data-end udp)
    (setf (ctx priority) (udp-length udp))
    (incf (getmap results 3) (+ (udp-src-port udp) (udp-dst-port udp))))
  (with-tc-ipv4 (data data-end ip)
    (incf (getmap results 4) (ipv4-ttl ip))
    (setf (ctx mark) (ipv4-dst-addr ip)))
  TC_ACT_RECLASSIFY)

(defprog pt-parse (:type :tc)
  (let ((d (tc-data))
        (de (tc-data-end)))
    (when-let ((eth (parse-eth d de))
               (ip (parse-ipv4 eth de)))
      (incf (getmap results 5) (ipv4-total-len ip))
      (if-let (tcp (parse-tcp eth de))
        (setf (ctx mark) (tcp-src-port tcp))
        (when-let ((udp (parse-udp eth de)))
          (setf (ctx mark) (udp-dst-port udp)))))
    (with-tc-eth (data data-end)
      (incf (getmap results 6) (eth-type data))
      (+ (eth-type data) (ctx mark)))))
