;; big-bytes — (bench) a payload scanner over the first 64 bytes after the Ethernet, IPv4
;; and TCP/UDP headers, as DPI-lite programs do: counts of zero, printable ASCII, and
;; high-bit bytes, a byte sum, and a match of "GET " at the payload's start (an HTTP request), every byte
;; bounds-checked before it is read.
;; Proves: a 64-trip dotimes over packet bytes at a variable start (after IHL and the TCP
;; data offset), per-byte classification by range comparisons, the counters as clang's.
;; (A verdict computed from the counters, or a count of changes from the previous byte,
;; makes them precise for the verifier and clang's twin then exceeds its 1M budget.)
;; twin-args: --input 020000000002020000000001080045000036123440004006148c0a0000010a0000029c40005000000001000000005018ffff3a9f0000474554202f20485454502f312e30
;; twin-args: --input 0200000000020200000000010800450000281234400040115ce2c0a801050a00000214e9003500147650717171717171717171717171
(defconstant scan 64)
;; results: 0 zero bytes, 1 printable, 2 high-bit, 3 byte sum, 5 HTTP GETs,
;; 6 bytes scanned
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defprog big-bytes (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 34) data-end)
      (return XDP_PASS))
    (unless (= (load u16 data 12) (htons #x0800))
      (return XDP_PASS))
    (let* ((ihl (* (logand (load u8 data 14) 15) 4))
           (proto (load u8 data 23))
           (l4 (+ data 14 ihl))
           (zeros 0) (printable 0) (high 0) (sum 0) (n 0))
      (when (> (+ l4 20) data-end)
        (return XDP_PASS))
      (let ((payload (cond ((= proto 6) (+ l4 (* (>> (load u8 l4 12) 4) 4)))
                           ((= proto 17) (+ l4 8))
                           (t (return XDP_PASS)))))
        (when (and (<= (+ payload 4) data-end)
                   (= (load u8 payload 0) 71) (= (load u8 payload 1) 69)
                   (= (load u8 payload 2) 84) (= (load u8 payload 3) 32))
          (incf (getmap results 5)))
        (dotimes (i scan)
          (let ((p (+ payload i)))
            (when (<= (+ p 1) data-end)
              (let ((c (load u8 p 0)))
                (cond ((= c 0) (incf zeros))
                      ((>= c 128) (incf high))
                      ((and (>= c 32) (< c 127)) (incf printable)))
                (setf sum (+ sum c)
                      n (+ n 1))))))
        (incf (getmap results 0) zeros)
        (incf (getmap results 1) printable)
        (incf (getmap results 2) high)
        (incf (getmap results 3) sum)
        (incf (getmap results 6) n)
        XDP_PASS))))
