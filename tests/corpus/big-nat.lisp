;; big-nat — (bench) source NAT for TCP and UDP in XDP, as a home router's fast path does
;; it: packets from 10.0.0.0/8 get the public address and a port allocated from a counter
;; (20000 + n mod 10000), the mapping kept both ways in two hash maps with struct keys;
;; replies to the public address are looked up and translated back, unknown ones dropped.
;; Every rewrite updates the IPv4 header checksum and the TCP or UDP checksum
;; incrementally (RFC 1624; a UDP checksum of 0 stays 0), and the packet is sent back out.
;; Proves: struct keys and values in both directions, packet stores of addresses and ports,
;; incremental checksum arithmetic in a defun called per changed word, the output packets
;; (compared byte by byte) and both tables as clang computes them.
;; twin-args: --no-default-inputs
;; twin-args: --input 020000000002020000000001080045000028123440004006e8c00a0000015db8d8229c40005000000001000000005002ffffd3750000
;; twin-args: --input 0200000000020200000000010800450000211234400040110e840a0000050808080814e90035000d80b97175657279
;; twin-args: --input 020000000002020000000001080045000028123440004006ce175db8d822c0a8640100504e200000004d000000025012ffff068f0000
;; twin-args: --input 020000000002020000000001080045000028123440004006ce175db8d822c0a864010050520700000001000000005010ffff02f80000
;; twin-args: --input 02000000000202000000000108004500002d123440004006e8bb0a0000015db8d8229c40005000000001000000005010ffff08fd0000474554202f
;; twin-args: --input 02000000000202000000000186dd6000000000091140fd000000000000000000000000000001fd000000000000000000000000000002000100020009000078
(defconstant public-ip #xc0a86401)        ; 192.168.100.1
(defconstant port-base 20000)
(defconstant port-range 10000)
(defstruct nat-key (saddr u32) (daddr u32) (sport u16) (dport u16) (proto u32))
(defstruct nat-orig (addr u32) (port u16) (pad u16))
(defmap outbound :type :hash :key nat-key :value u32 :max-entries 1024)
(defmap inbound :type :hash :key nat-key :value nat-orig :max-entries 1024)
;; results: 0 next port, 1 new mappings, 2 translated out, 3 translated in, 4 dropped in,
;; 5 passed (not ours)
(defmap results :type :array :key u32 :value u64 :max-entries 6)

;; RFC 1624: the checksum (host order) after one 16-bit word changes from OLD to NEW
(defun csum-replace (hc old new)
  (let ((s (+ (logand (lognot hc) #xffff) (logand (lognot old) #xffff) new)))
    (setf s (+ (logand s #xffff) (>> s 16)))
    (setf s (+ (logand s #xffff) (>> s 16)))
    (logand (lognot s) #xffff)))

;; the checksum after a 32-bit address (host order) changes
(defun csum-replace32 (hc old new)
  (csum-replace (csum-replace hc (>> old 16) (>> new 16)) (logand old #xffff) (logand new #xffff)))

(defprog big-nat (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 42) data-end)
      (return XDP_PASS))
    (unless (and (= (load u16 data 12) (htons #x0800)) (= (load u8 data 14) #x45))
      (incf (getmap results 5))
      (return XDP_PASS))
    (let* ((ip (+ data 14))
           (l4 (+ ip 20))
           (proto (load u8 ip 9))
           (coff (if (= proto 6) 16 6))
           (saddr (ntohl (load u32 ip 12)))
           (daddr (ntohl (load u32 ip 16)))
           (sport (ntohs (load u16 l4 0)))
           (dport (ntohs (load u16 l4 2)))
           (k (make-nat-key)))
      (unless (or (= proto 6) (= proto 17))
        (incf (getmap results 5))
        (return XDP_PASS))
      (when (> (+ l4 20) data-end)
        (return XDP_PASS))
      (cond
        ((= (logand saddr #xff000000) #x0a000000)
         (setf (nat-key-saddr k) saddr (nat-key-daddr k) daddr
               (nat-key-sport k) sport (nat-key-dport k) dport (nat-key-proto k) proto)
         (let ((port (getmap outbound k)))
           (when (= port 0)
             (let ((n (getmap results 0))
                   (back (make-nat-key))
                   (orig (make-nat-orig)))
               (setf port (+ port-base (mod n port-range)))
               (incf (getmap results 0))
               (map-update outbound k port BPF_NOEXIST)
               (setf (nat-key-saddr back) daddr (nat-key-daddr back) public-ip
                     (nat-key-sport back) dport (nat-key-dport back) port
                     (nat-key-proto back) proto
                     (nat-orig-addr orig) saddr (nat-orig-port orig) sport)
               (map-update inbound back orig BPF_ANY)
               (incf (getmap results 1))))
           (let ((ipc (ntohs (load u16 ip 10)))
                 (l4c (ntohs (load u16 l4 coff))))
             (store u16 ip 10 (htons (csum-replace32 ipc saddr public-ip)))
             (store u32 ip 12 (htonl public-ip))
             (unless (and (= proto 17) (= l4c 0))
               (store u16 l4 coff
                      (htons (csum-replace (csum-replace32 l4c saddr public-ip) sport port))))
             (store u16 l4 0 (htons port))
             (incf (getmap results 2))
             XDP_TX)))
        ((= daddr public-ip)
         (setf (nat-key-saddr k) saddr (nat-key-daddr k) daddr
               (nat-key-sport k) sport (nat-key-dport k) dport (nat-key-proto k) proto)
         (let ((o (getmap inbound k)))
           (when (= o 0)
             (incf (getmap results 4))
             (return XDP_DROP))
           (let ((addr (nat-orig-addr o))
                 (port (nat-orig-port o))
                 (ipc (ntohs (load u16 ip 10)))
                 (l4c (ntohs (load u16 l4 coff))))
             (store u16 ip 10 (htons (csum-replace32 ipc daddr addr)))
             (store u32 ip 16 (htonl addr))
             (unless (and (= proto 17) (= l4c 0))
               (store u16 l4 coff
                      (htons (csum-replace (csum-replace32 l4c daddr addr) dport port))))
             (store u16 l4 2 (htons port))
             (incf (getmap results 3))
             XDP_TX)))
        (t
         (incf (getmap results 5))
         XDP_PASS)))))
