;; wh-parse — expression-style parsing: parse-* in when-let/if-let pipelines, and user headers.
;; Proves: parse-eth, parse-ipv4, parse-tcp and parse-udp give the header's address or 0
;; (too short, another ethertype or protocol), counted per packet; a when-let pipeline in
;; which parse-udp starts from parse-eth's pointer and a body that reads a DNS header through
;; a user (defheader dns ...); if-let's else branch for packets parse-ipv4 refuses; user
;; defheaders with :net-order on u16, u32 and u64 fields (ntohs, ntohl, ntohll: TCP's seq and
;; ack-seq read as one big-endian u64) and without it (a raw u32 at an odd offset), on an
;; ARP header and on TCP; xdp-data and xdp-data-end; the verdict computed from those fields.
;; Crafted inputs: TCP SYN to port 9999 seq 01020304; TCP ACK seq deadbeef; a 20-byte runt;
;; UDP to port 7; a 34-byte GRE packet; TCP FIN|ACK seq ffffffff; an ARP reply 10.0.0.9 is-at
;; 02:aa:bb:cc:dd:ee to 10.0.0.1, and an ARP request cut to 40 bytes (shorter than its header).
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500002d1234400001060000ac1000010a00000204d201bbdeadbeef000000005010ffff0000000068656c6c6f
;; twin-args: --input 0200000000020200000000010800450000140000
;; twin-args: --input 02000000000202000000000108004500002312344000801100000a010203c0a807099c400007000f000078797a7a793132
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --input 020000000002020000000001080045000028123440003f060000c0a807090a0102030050c738ffffffff000000005011ffff00000000
;; twin-args: --input 02000000000102aabbccddee0806000108000604000202aabbccddee0a0000090200000000010a000001
;; twin-args: --input ffffffffffff020000000001080600010800060400010200000000010a0000010000000000000a00
(defheader dns
  (id :offset 0 :type u16 :net-order t)
  (flags :offset 2 :type u16 :net-order t)
  (qdcount :offset 4 :type u16 :net-order t))

(defheader arp
  (htype :offset 0 :type u16 :net-order t)
  (ptype :offset 2 :type u16 :net-order t)
  (hlen :offset 4 :type u8)
  (oper :offset 6 :type u16 :net-order t)
  (sha-mid :offset 9 :type u32)
  (spa :offset 14 :type u32 :net-order t)
  (tpa :offset 24 :type u32 :net-order t))

(defheader tcpx
  (seq-ack :offset 4 :type u64 :net-order t)
  (off-flags :offset 12 :type u16 :net-order t))

(defconstant +arp-hdr-len+ 28)
(defconstant +dns-hdr-len+ 12)

(defmap results :type :array :key u32 :value u64 :max-entries 20)

(defprog pp-parse (:type :xdp)
  (let ((data (xdp-data))
        (data-end (xdp-data-end))
        (verdict XDP_PASS))
    (when (parse-eth data data-end) (incf (getmap results 0)))
    (when (parse-ipv4 data data-end) (incf (getmap results 1)))
    (when (parse-tcp data data-end) (incf (getmap results 2)))
    (when (parse-udp data data-end) (incf (getmap results 3)))
    (when-let ((eth (parse-eth data data-end))
               (udp (parse-udp eth data-end)))
      (incf (getmap results 4) (udp-dst-port udp))
      (when (and (= (udp-dst-port udp) 53)
                 (<= (+ udp +udp-hdr-len+ +dns-hdr-len+) data-end))
        (let ((dns (+ udp +udp-hdr-len+)))
          (incf (getmap results 5) (dns-id dns))
          (incf (getmap results 6) (dns-flags dns))
          (incf (getmap results 7) (dns-qdcount dns))
          (setf verdict XDP_TX))))
    (when-let ((tcp (parse-tcp data data-end)))
      (incf (getmap results 8) (tcpx-seq-ack tcp))
      (incf (getmap results 9) (logxor (tcpx-seq-ack tcp) (tcp-seq tcp)))
      (setf verdict (+ 10 (logand (tcpx-off-flags tcp) #x3f))))
    (when-let ((eth (parse-eth data data-end)))
      (when (= (eth-type eth) +ethertype-arp+)
        (incf (getmap results 10))
        (when (<= (+ eth +eth-hdr-len+ +arp-hdr-len+) data-end)
          (let ((arp (+ eth +eth-hdr-len+)))
            (incf (getmap results 11) (+ (arp-htype arp) (arp-ptype arp) (arp-hlen arp)))
            (incf (getmap results 12) (arp-sha-mid arp))
            (incf (getmap results 13) (arp-spa arp))
            (incf (getmap results 14) (arp-tpa arp))
            (setf verdict (+ 100 (arp-oper arp)))))))
    (incf (getmap results 15)
          (if-let (ip (parse-ipv4 data data-end))
            (ipv4-ttl ip)
            1000))
    verdict))
