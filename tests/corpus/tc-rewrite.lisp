;; tc-rewrite — a :tc program that rewrites packets: TTL decrement with checksum fix-up,
;; port swap, MAC swap.
;; Proves: helpers taking the context (ctx) and stack buffers: skb-store-bytes and
;; l3-csum-replace, and their return values; that packet pointers are taken again after
;; helpers that may move the packet; direct packet stores (store u16/u32) in a tc program;
;; the harness compares every output packet byte. Only IPv4 with TTL > 0 is rewritten.
(defmap results :type :array :key u32 :value u64 :max-entries 4)

(defprog tc-rewrite (:type :tc)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 38) data-end)
      (return TC_ACT_OK))
    (unless (= (load u16 data 12) (htons #x0800))
      (return TC_ACT_OK))
    (let ((old (load u16 data 22))
          (ttl (load u8 data 22))
          (ports (load u32 data 34))
          (buf (stack-buffer 8)))
      (when (= ttl 0)
        (return TC_ACT_SHOT))
      (let ((new (- old 1)))
        (store u16 buf 0 new)
        (incf (getmap results 0) (skb-store-bytes ctx 22 buf 2 0))
        (incf (getmap results 1) (l3-csum-replace ctx 24 old new 2))
        (store u32 buf 0 (logior (>> ports 16) (logand (<< ports 16) #xffff0000)))
        (incf (getmap results 2) (skb-store-bytes ctx 34 buf 4 0))
        (let ((data (ctx data))
              (data-end (ctx data-end)))
          (when (> (+ data 26) data-end)
            (return TC_ACT_SHOT))
          (let ((d0 (load u32 data 0))
                (d1 (load u16 data 4)))
            (store u32 data 0 (load u32 data 6))
            (store u16 data 4 (load u16 data 10))
            (store u32 data 6 d0)
            (store u16 data 10 d1))
          (incf (getmap results 3) (load u16 data 24))
          TC_ACT_OK)))))
