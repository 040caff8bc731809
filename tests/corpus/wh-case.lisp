;; wh-case — Whistler's case.
;; Proves: case on single values (integers and +constants+), on lists of values, with a t,
;; an otherwise and an else default, and with no default (its value is then 0); the first
;; matching clause wins when a value appears twice; a clause body of several forms (the last
;; is the value); the key form is computed exactly once however many clauses are tested (it
;; increments a map counter); case as a value, as a statement, nested, and as the verdict.
;; Crafted inputs as in wh-pkt-xdp (TCP to port 9999, TCP ACK to 443, a runt, UDP to port 7,
;; GRE, TCP FIN|ACK from port 80).
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500002d1234400001060000ac1000010a00000204d201bbdeadbeef000000005010ffff0000000068656c6c6f
;; twin-args: --input 0200000000020200000000010800450000140000
;; twin-args: --input 02000000000202000000000108004500002312344000801100000a010203c0a807099c400007000f000078797a7a793132
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --input 020000000002020000000001080045000028123440003f060000c0a807090a0102030050c738ffffffff000000005011ffff00000000
(defmap results :type :array :key u32 :value u64 :max-entries 16)

(defprog cs-case (:type :xdp)
  (let ((data (xdp-data))
        (data-end (xdp-data-end)))
    (when (> (+ data +eth-hdr-len+) data-end)
      (return XDP_ABORTED))
    (incf (getmap results 0)
          (case (eth-type data)
            (+ethertype-ipv4+ 4)
            (+ethertype-ipv6+ 6)
            ((#x0806 #x8035) 1)
            (t 99)))
    (when (> (+ data 54) data-end)
      (return (case (- data-end data)
                (14 20)
                ((20 34) 21)
                (otherwise 22))))
    (let ((proto (ipv4-protocol (+ data +eth-hdr-len+)))
          (dport (ntohs (load u16 data 36))))
      ;; no default: 0 when nothing matches
      (incf (getmap results 1)
            (case proto
              (6 (incf (getmap results 2)) 600)
              (17 1700)))
      ;; the key is computed once: results 3 counts one per packet
      (incf (getmap results 4)
            (case (progn (incf (getmap results 3)) dport)
              (80 1)
              (443 2)
              ((53 7) 3)
              ((9999 443) 4)
              (else 5)))
      ;; nested, as a statement
      (case proto
        (+ip-proto-tcp+
         (case (load u8 data 47)
           (+tcp-syn+ (incf (getmap results 5)))
           ((#x10 #x18) (incf (getmap results 6) dport))
           (t (incf (getmap results 7) (load u8 data 47)))))
        (+ip-proto-udp+ (incf (getmap results 8) dport))
        (t (incf (getmap results 9) proto)))
      (case dport
        (9999 XDP_DROP)
        ((443 51000) XDP_TX)
        (t XDP_PASS)))))
