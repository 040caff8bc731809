;; ipv6-parse — IPv6 parsing: addresses as pairs of u64, a walk over extension headers,
;; and per-next-header counts.
;; Proves: 128-bit addresses handled as two 64-bit loads folded into a flow hash with
;; logxor/<</>>; a bounded dotimes walking up to 4 extension headers (hop-by-hop 0,
;; routing 43, destination options 60) where each step moves a packet pointer by a
;; packet-controlled length ((hdr-ext-len + 1) * 8) and bounds-checks again; the final
;; next header and the transport ports behind the extension headers.
;; twin-args: --input 02000000000202000000000186dd600000000028004020010db800000000000000000000000120010db80000000000000000000000023c000000000000001101000000000000000000000000000003e807d00010000068656c6c6f212121
;; twin-args: --input 02000000000202000000000186dd60000000000c3a0120010db800000000000000000000000120010db8000000000000000000000002800000000001000170696e67
(defmap by-next :type :hash :key u32 :value u64 :max-entries 32)
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defun is-ext (nh)
  (or (= nh 0) (= nh 43) (= nh 60)))

(defprog ipv6-parse (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 54) data-end)
      (return XDP_PASS))
    (unless (= (load u16 data 12) (htons #x86dd))
      (return XDP_PASS))
    (let* ((ip (+ data 14))
           (s0 (load u64 ip 8))
           (s1 (load u64 ip 16))
           (d0 (load u64 ip 24))
           (d1 (load u64 ip 32))
           (hash (logxor s0 (<< s1 1) (>> d0 3) (* d1 5)))
           (nh (load u8 ip 6))
           (hops 0)
           (p (+ ip 40)))
      (incf (getmap results 0) hash)
      (incf (getmap results 1) (ntohs (load u16 ip 4)))
      (incf (getmap results 2) (load u8 ip 7))
      (dotimes (i 4)
        (when (and (is-ext nh) (<= (+ p 8) data-end))
          (setf nh (load u8 p 0))
          (setf p (+ p (* (+ (load u8 p 1) 1) 8)))
          (incf hops)))
      (incf (getmap by-next nh))
      (incf (getmap results 3) hops)
      (when (and (or (= nh 6) (= nh 17)) (<= (+ p 4) data-end))
        (incf (getmap results 4) (+ (* (ntohs (load u16 p 0)) 65536) (ntohs (load u16 p 2)))))
      (if (= (load u8 ip 7) 1) XDP_DROP XDP_PASS))))
