;; big-csum — (bench) Internet checksums as a router or validator computes them: the IPv4
;; header's (options included: a loop over IHL*2 words, leaving at the first word not
;; to sum, so that the verifier sees one exit per trip) and UDP's over the pseudo-header
;; and up to 128 bytes of datagram (a word loop, then the odd last byte), each verified and
;; counted; then forwarding: TTL decremented with the header checksum updated
;; incrementally (RFC 1624) and the packet sent back out (XDP_TX), TTL 1 dropped.
;; Proves: while-loops whose trip count depends on the packet (a truncated word drops the
;; packet), each word bounds-checked before its read, folding a 64-bit sum to 16 bits, stores into the packet (the output packet
;; is compared), the counters and verdicts as clang computes them.
;; twin-args: --input 02000000000202000000000108004500004412344000401114730a0000010a00000203e807d0003001c268656c6c6f20636865636b73756d20776f726c642c203430206279746573206f6620746578742121
;; twin-args: --input 02000000000202000000000108004500004412344000401114730a0000010a00000203e807d0003001c268656c6c6f20636864636b73756d20776f726c642c203430206279746573206f6620746578742121
;; twin-args: --input 020000000002020000000001080046000023123440000111be8f0a0000010a0000029404000000070007000b0000616263
(defconstant max-udp-words 64)
;; results: 0 IPv4 checksum good, 1 bad, 2 UDP good, 3 UDP bad, 4 UDP without a
;; checksum, 5 TTL expired, 6 forwarded, 7 UDP too long to check
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defun fold (s)
  (let ((x (+ (logand s #xffff) (>> s 16))))
    (setf x (+ (logand x #xffff) (>> x 16)))
    (logand (+ (logand x #xffff) (>> x 16)) #xffff)))

(defprog big-csum (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 34) data-end)
      (return XDP_PASS))
    (unless (= (load u16 data 12) (htons #x0800))
      (return XDP_PASS))
    (let* ((ip (+ data 14))
           (words (* (logand (load u8 ip 0) 15) 2))
           (sum 0))
      (when (< words 10)
        (return XDP_DROP))
      (let ((i 0))
        (loop :while (and (< i words) (< i 30))
          (let ((w (+ ip (* i 2))))
            (when (> (+ w 2) data-end)
              (return XDP_DROP))
            (setf sum (+ sum (ntohs (load u16 w 0)))))
          (incf i)))
      (if (= (fold sum) #xffff)
          (incf (getmap results 0))
          (progn (incf (getmap results 1)) (return XDP_DROP)))
      (when (= (load u8 ip 9) 17)
        (let ((uh (+ ip (* words 2))))
          (when (> (+ uh 8) data-end)
            (return XDP_DROP))
          (let ((ulen (ntohs (load u16 uh 4)))
                (usum (+ (ntohs (load u16 ip 12)) (ntohs (load u16 ip 14))
                         (ntohs (load u16 ip 16)) (ntohs (load u16 ip 18)) 17)))
            (cond
              ((= (load u16 uh 6) 0) (incf (getmap results 4)))
              ((> ulen (* max-udp-words 2)) (incf (getmap results 7)))
              (t
               (setf usum (+ usum ulen))
               (let ((i 0))
                 (loop :while (and (< (+ (* i 2) 1) ulen) (< i max-udp-words))
                   (let ((w (+ uh (* i 2))))
                     (when (> (+ w 2) data-end)
                       (return XDP_DROP))
                     (setf usum (+ usum (ntohs (load u16 w 0)))))
                   (incf i)))
               (when (/= (logand ulen 1) 0)
                 (let ((w (+ uh (logand ulen #xfffe))))   ; ulen - 1, never negative
                   (when (<= (+ w 1) data-end)
                     (setf usum (+ usum (<< (load u8 w 0) 8))))))
               (if (= (fold usum) #xffff)
                   (incf (getmap results 2))
                   (incf (getmap results 3))))))))
      (let ((ttl (load u8 ip 8)))
        (when (<= ttl 1)
          (incf (getmap results 5))
          (return XDP_DROP))
        ;; RFC 1624: HC' = ~(~HC + ~m + m'), m the 16-bit word holding the TTL
        (let* ((old (ntohs (load u16 ip 8)))
               (new (- old #x100))
               (hc (ntohs (load u16 ip 10)))
               (s (+ (logand (lognot hc) #xffff) (logand (lognot old) #xffff) new)))
          (store u8 ip 8 (- ttl 1))
          (store u16 ip 10 (htons (logand (lognot (fold s)) #xffff)))
          (incf (getmap results 6))
          XDP_TX)))))
