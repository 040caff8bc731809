;; big-flowtable — (bench) a flow table in an LRU hash: IPv4 5-tuples (a struct key with
;; explicit padding) to per-flow statistics (a struct value: packets, bytes, the first
;; packet's length, the TCP flags seen), as flow exporters keep them; new flows are
;; inserted with BPF_NOEXIST, known ones updated in place through the looked-up pointer.
;; Proves: struct keys built field by field on the stack, struct values read and written
;; through the map's pointer, an :lru-hash compared entry by entry, a verdict from the
;; flow's state (drop a flow's packets after its fourth).
;; twin-args: --input 020000000002020000000001080045000028123440004006149a0a0000010a0000029c40005000000001000000005002ffffff4e0000
;; twin-args: --input 020000000002020000000001080045000036123440004006148c0a0000010a0000029c40005000000001000000005018ffff3a9f0000474554202f20485454502f312e30
;; twin-args: --input 0200000000020200000000010800450000281234400040115ce2c0a801050a00000214e9003500147650717171717171717171717171
(defstruct flow
  (saddr u32) (daddr u32) (sport u16) (dport u16) (proto u8) (pad (array u8 3)))
(defstruct flowstat
  (packets u64) (bytes u64) (first-len u32) (tcp-flags u32))
(defmap flows :type :lru-hash :key flow :value flowstat :max-entries 1024)
;; results: 0 new flows, 1 updates, 2 not IPv4, 3 bytes seen, 4 drops
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defprog big-flowtable (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 34) data-end)
      (return XDP_PASS))
    (unless (and (= (load u16 data 12) (htons #x0800))
                 (= (logand (load u8 data 14) 15) 5))
      (incf (getmap results 2))
      (return XDP_PASS))
    (let ((k (make-flow))
          (proto (load u8 data 23))
          (len (- data-end data))
          (flags 0))
      (setf (flow-saddr k) (load u32 data 26)
            (flow-daddr k) (load u32 data 30)
            (flow-proto k) proto)
      (when (or (= proto 6) (= proto 17))
        (when (> (+ data 54) data-end)
          (return XDP_PASS))
        (setf (flow-sport k) (load u16 data 34)
              (flow-dport k) (load u16 data 36))
        (when (= proto 6)
          (setf flags (load u8 data 47))))
      (incf (getmap results 3) len)
      (let ((s (getmap flows k)))
        (if (= s 0)
            (let ((n (make-flowstat)))
              (setf (flowstat-packets n) 1
                    (flowstat-bytes n) len
                    (flowstat-first-len n) len
                    (flowstat-tcp-flags n) flags)
              (map-update flows k n BPF_NOEXIST)
              (incf (getmap results 0))
              XDP_PASS)
            (progn
              (incf (flowstat-packets s))
              (incf (flowstat-bytes s) len)
              (setf (flowstat-tcp-flags s) (logior (flowstat-tcp-flags s) flags))
              (incf (getmap results 1))
              (if (> (flowstat-packets s) 4)
                  (progn (incf (getmap results 4)) XDP_DROP)
                  XDP_PASS)))))))
