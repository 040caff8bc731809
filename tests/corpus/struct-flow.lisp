;; struct-flow — a per-flow table keyed and valued by C-layout structs.
;; Proves: defstruct layout with natural alignment and tail padding (flow-key is 16 bytes
;; with 3 bytes of padding, flow-stats 24), arrays and nested structs as fields, sizeof and
;; offsetof, accessors as values on a stack buffer, a map value and a packet pointer,
;; accessors as setf/incf places (several pairs in one setf), a struct-keyed :hash map
;; looked up with a pointer key, if-let and when-let on map-lookup, map-update of a stack
;; struct with BPF_NOEXIST, and getmap on a struct-valued map (the value's address, or 0).
;; twin-args: --repeat 2
(defstruct eth-hdr
  (dst (array u8 6))
  (src (array u8 6))
  (proto u16))

(defstruct flow-key
  (saddr u32)
  (daddr u32)
  (sport u16)
  (dport u16)
  (proto u8))

(defstruct flow-stats
  (packets u64)
  (bytes u64)
  (last-len u16)
  (tcp-flags u8)
  (syns u8)
  (first-ttl u32))

(defstruct pkt-summary
  (eth eth-hdr)
  (ttl u8)
  (len u64))

(defmap flows :type :hash :key flow-key :value flow-stats :max-entries 64)
(defmap results :type :array :key u32 :value u64 :max-entries 16)

(defprog struct-flow (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 54) data-end)
      (return XDP_PASS))
    (unless (= (ntohs (eth-hdr-proto data)) #x0800)
      (return XDP_PASS))
    (let ((ip (+ data (sizeof eth-hdr)))
          (len (- data-end data))
          (key (stack-buffer (sizeof flow-key))))
      (setf (flow-key-saddr key) (load u32 ip 12)
            (flow-key-daddr key) (load u32 ip 16)
            (flow-key-proto key) (load u8 ip 9)
            (flow-key-sport key) (ntohs (load u16 ip 20))
            (flow-key-dport key) (ntohs (load u16 ip 22)))
      (if-let (st (map-lookup flows key))
        (progn
          (incf (flow-stats-packets st))
          (incf (flow-stats-bytes st) len)
          (setf (flow-stats-last-len st) len))
        (let ((st (stack-buffer (sizeof flow-stats))))
          (setf (flow-stats-packets st) 1
                (flow-stats-bytes st) len
                (flow-stats-last-len st) len
                (flow-stats-first-ttl st) (load u8 ip 8))
          (map-update flows key st BPF_NOEXIST)))
      (when (= (flow-key-proto key) 6)
        (when-let ((st (map-lookup flows key)))
          (setf (flow-stats-tcp-flags st) (logior (flow-stats-tcp-flags st) (load u8 ip 33)))
          (when (logand (load u8 ip 33) 2)
            (incf (flow-stats-syns st)))))
      (setf (getmap results 0) (sizeof flow-key)
            (getmap results 1) (sizeof flow-stats)
            (getmap results 2) (offsetof flow-key proto)
            (getmap results 3) (offsetof flow-stats tcp-flags)
            (getmap results 4) (offsetof flow-stats first-ttl)
            (getmap results 5) (sizeof eth-hdr)
            (getmap results 6) (sizeof pkt-summary)
            (getmap results 7) (offsetof pkt-summary ttl)
            (getmap results 8) (offsetof pkt-summary len)
            (getmap results 9) (offsetof eth-hdr proto))
      (incf (getmap results 10) (if-let (st (getmap flows key)) (flow-stats-packets st) 0))
      (incf (getmap results 11) (+ (flow-key-sport key) (flow-key-saddr key)))
      (flow-key-dport key))))
