;; dns-count — count DNS queries per query name: UDP to port 53, a djb2 hash over at most
;; 32 bytes of the QNAME, counted in a hash map keyed by the 64-bit hash.
;; Proves: a realistic parse (Ethernet, IPv4 without options, UDP, DNS header); a dotimes
;; with a defconstant bound whose body bounds-checks each byte and stops contributing at the
;; name's terminating zero through a flag variable; 64-bit multiply-add hashing that wraps;
;; a u64 key; the per-query verdict XDP_DROP for names longer than the budget.
;; twin-args: --input 02000000000202000000000108004500005443210000401123430a0000010a0000350fa00035004000001234010000010000000000001a612d766572792d6c6f6e672d737562646f6d61696e2d6e616d65076578616d706c65036f72670000010001
;; twin-args: --input 02000000000202000000000108004500003243210000401123650a0000010a0000350fa10035001e0000123401000001000000000000017802696f0000010001
;; twin-args: --input 02000000000202000000000108004500003243210000401123650a0000010a0000350fa114e9001e0000123401000001000000000000017802696f0000010001
(defconstant max-name 32)
(defconstant qname-offset (+ 14 20 8 12))
(defmap qnames :type :hash :key u64 :value u64 :max-entries 128)
(defmap results :type :array :key u32 :value u64 :max-entries 4)

(defprog dns-count (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data qname-offset) data-end)
      (return XDP_PASS))
    (unless (and (= (load u16 data 12) (htons #x0800))
                 (= (load u8 data 14) #x45)
                 (= (load u8 data 23) 17)
                 (= (ntohs (load u16 data 36)) 53))
      (return XDP_PASS))
    (let ((h 5381)
          (n 0)
          (done 0))
      (dotimes (i max-name)
        (let ((p (+ data (+ qname-offset i))))
          (when (and (= done 0) (<= (+ p 1) data-end))
            (let ((c (load u8 p 0)))
              (if (= c 0)
                  (setf done 1)
                  (setf h (+ (* h 33) c)
                        n (+ n 1)))))))
      (incf (getmap qnames h))
      (incf (getmap results 0) n)
      (incf (getmap results 1))
      (if (= done 0)
          (progn (incf (getmap results 2)) XDP_DROP)
          XDP_PASS))))
