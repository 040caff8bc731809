;; syn-guard — a SYN flood guard: count SYNs per source address in an LRU hash and drop a
;; source once it goes over a limit.
;; Proves: an :lru-hash map, parsing Ethernet/IPv4/TCP with the IHL taken from the packet
;; (variable header length, bounds-checked again), if-let on map-lookup with an else branch
;; that inserts with map-update BPF_NOEXIST, load/store through a map value pointer, a
;; return from inside nested forms, and a defconstant in a comparison. --repeat 5 makes the
;; same SYN arrive five times so the limit is crossed.
;; twin-args: --repeat 5
(defconstant syn-limit 3)
(defmap syn-count :type :lru-hash :key u32 :value u64 :max-entries 1024)
(defmap verdicts :type :array :key u32 :value u64 :max-entries 4)

(defprog syn-guard (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 34) data-end)
      (return XDP_PASS))
    (unless (= (load u16 data 12) (htons #x0800))
      (return XDP_PASS))
    (let* ((ip (+ data 14))
           (ihl (* (logand (load u8 ip 0) #x0f) 4)))
      (unless (and (= (load u8 ip 9) 6) (>= ihl 20))
        (return XDP_PASS))
      (let ((tcp (+ ip ihl)))
        (when (> (+ tcp 20) data-end)
          (return XDP_PASS))
        (let ((flags (load u8 tcp 13))
              (src (load u32 ip 12)))
          (unless (= (logand flags #x12) #x02)
            (incf (getmap verdicts 0))
            (return XDP_PASS))
          (if-let (n (map-lookup syn-count src))
            (progn
              (store u64 n 0 (+ (load u64 n 0) 1))
              (when (> (load u64 n 0) syn-limit)
                (incf (getmap verdicts 1))
                (return XDP_DROP)))
            (map-update syn-count src 1 BPF_NOEXIST))
          (incf (getmap verdicts 2))
          XDP_PASS)))))
