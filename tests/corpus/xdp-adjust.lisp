;; xdp-adjust — growing and shrinking packets with xdp-adjust-head and xdp-adjust-tail.
;; Proves: helpers that take ctx and move the packet, their return values (0, or -EINVAL
;; as a 64-bit value when the packet would become too short), (ctx data)/(ctx data-end) read
;; again afterwards, and writes into the new head; two programs in one object, each compared
;; on every input: vlan-push inserts an 802.1Q tag after the MACs, strip-eth removes the
;; Ethernet header and trims 4 bytes off the tail.
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defprog vlan-push (:type :xdp)
  (let ((rc (xdp-adjust-head ctx -4)))
    (incf (getmap results 0) rc)
    (when (/= rc 0)
      (return XDP_ABORTED))
    (let ((data (ctx data))
          (data-end (ctx data-end)))
      (when (> (+ data 18) data-end)
        (return XDP_DROP))
      (store u32 data 0 (load u32 data 4))
      (store u32 data 4 (load u32 data 8))
      (store u32 data 8 (load u32 data 12))
      (store u16 data 12 (htons #x8100))
      (store u16 data 14 (htons (logior #x2000 (logand (load u8 data 17) #x0fff))))
      (incf (getmap results 1) (- data-end data))
      XDP_TX)))

(defprog strip-eth (:type :xdp)
  (let ((rc (xdp-adjust-head ctx 14)))
    (incf (getmap results 2) rc)
    (incf (getmap results 3) (if (= rc 0) 1 0))
    (let ((tail (xdp-adjust-tail ctx -4)))
      (incf (getmap results 4) tail)
      (let ((data (ctx data))
            (data-end (ctx data-end)))
        (incf (getmap results 5) (- data-end data))
        (when (> (+ data 1) data-end)
          (return XDP_DROP))
        (store u8 data 0 (logior (load u8 data 0) 1))
        XDP_PASS))))
