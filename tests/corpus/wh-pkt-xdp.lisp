;; wh-pkt-xdp — Whistler's packet library in XDP, one guard form per program.
;; Proves: with-packet :min-len returns XDP_PASS for a packet shorter than N and otherwise runs
;; its body, whose value is the program's; with-eth, with-ipv4, with-tcp and with-udp return
;; XDP_PASS early for packets too short for their headers, skip the body for other ethertypes
;; and protocols and go on after it, and a (return ...) in the body leaves the program; every
;; header accessor of the library — eth-type, ipv4-protocol ipv4-src-addr ipv4-dst-addr
;; ipv4-ttl ipv4-total-len, tcp-src-port tcp-dst-port tcp-flags tcp-seq, udp-src-port
;; udp-dst-port udp-length — in host order (addresses in network order); xdp-data and
;; xdp-data-end; the constants +eth-hdr-len+ +ipv4-hdr-len+ +ethertype-ipv4/ipv6/arp+
;; +tcp-syn/ack/fin+.
;; Crafted inputs, in order: TCP SYN 10.1.2.3:4444 -> 192.168.7.9:9999 ttl 200 (dropped);
;; TCP ACK 172.16.0.1:1234 -> 10.0.0.2:443 seq deadbeef ttl 1 with 5 bytes of payload; a
;; 20-byte runt (Ethernet + 6 bytes of IPv4); UDP :40000 -> :7 ttl 128; a 34-byte IPv4 GRE
;; packet (protocol 47, no payload) ttl 255; TCP FIN|ACK :80 -> :51000 seq ffffffff ttl 63.
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500002d1234400001060000ac1000010a00000204d201bbdeadbeef000000005010ffff0000000068656c6c6f
;; twin-args: --input 0200000000020200000000010800450000140000
;; twin-args: --input 02000000000202000000000108004500002312344000801100000a010203c0a807099c400007000f000078797a7a793132
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --input 020000000002020000000001080045000028123440003f060000c0a807090a0102030050c738ffffffff000000005011ffff00000000
(defmap results :type :array :key u32 :value u64 :max-entries 24)

;; with-packet alone: 20 bytes or XDP_PASS
(defprog px-packet (:type :xdp)
  (incf (getmap results 0))
  (with-packet (data data-end :min-len (+ +eth-hdr-len+ 6))
    (incf (getmap results 1) (- data-end data))
    (+ 100 (load u8 data 19))))

(defprog px-eth (:type :xdp)
  (with-eth (data data-end)
    (incf (getmap results 2) (eth-type data))
    (when (= (eth-type data) +ethertype-arp+)
      (return XDP_TX))
    (when (= (eth-type data) +ethertype-ipv6+)
      (return XDP_DROP)))
  (incf (getmap results 3))
  (+ 10 (- (xdp-data-end) (xdp-data))))

(defprog px-ipv4 (:type :xdp)
  (with-ipv4 (data data-end ip)
    (incf (getmap results 4) (ipv4-protocol ip))
    (incf (getmap results 5) (ipv4-src-addr ip))
    (incf (getmap results 6) (ipv4-dst-addr ip))
    (incf (getmap results 7) (- (ipv4-total-len ip) +ipv4-hdr-len+))
    (return (+ 1000 (ipv4-ttl ip))))
  (incf (getmap results 8))
  XDP_DROP)

(defprog px-tcp (:type :xdp)
  (with-tcp (data data-end tcp)
    (incf (getmap results 9) (tcp-src-port tcp))
    (incf (getmap results 10) (tcp-dst-port tcp))
    (incf (getmap results 11) (tcp-seq tcp))
    (incf (getmap results 12) (tcp-flags tcp))
    (when (= (tcp-dst-port tcp) 9999)
      (return XDP_DROP))
    (when (logand (tcp-flags tcp) +tcp-fin+)
      (return 77))
    (when (= (tcp-flags tcp) +tcp-ack+)
      (return XDP_TX))
    (when (logand (tcp-flags tcp) +tcp-syn+)
      (incf (getmap results 13))))
  (incf (getmap results 14))
  XDP_ABORTED)

(defprog px-udp (:type :xdp)
  (with-udp (data data-end udp)
    (incf (getmap results 15) (udp-src-port udp))
    (incf (getmap results 16) (udp-dst-port udp))
    (incf (getmap results 17) (udp-length udp))
    (return (if (= (udp-dst-port udp) 53) XDP_TX (+ 200 (udp-length udp)))))
  (incf (getmap results 18) (- (xdp-data-end) (xdp-data)))
  XDP_PASS)
