;; big-ratelimit — (bench) a per-source token-bucket rate limiter in XDP: each IPv4 source
;; has a bucket (a struct value in a hash map: tokens in bytes, last refill time) refilled at
;; RATE bytes per millisecond up to BURST, and a packet passes when its length is in the
;; bucket; over-limit packets are dropped and counted per source. A production limiter
;; reads (ktime-get-ns) for NOW; here the clock is the IPv4 ID times a millisecond, so that
;; both twins see the same time on every run.
;; Proves: a struct value updated through the map's pointer, division of a time delta by a
;; constant, min by comparison, the verdict and every bucket as clang computes them.
;; twin-args: --input 020000000002020000000001080045000080000140004011266a0a0000010a00000203e807d0006c00007a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a
;; twin-args: --input 02000000000202000000000108004500014800024000401125a10a0000010a00000203e807d0013400007a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a
;; twin-args: --input 02000000000202000000000108004500014800024000401125a10a0000010a00000203e807d0013400007a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a
;; twin-args: --input 02000000000202000000000108004500014800034000401125a00a0000010a00000203e807d0013400007a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a
;; twin-args: --input 020000000002020000000001080045000058002840004011266b0a0000010a00000203e807d0004400007a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a
(defconstant ns-per-ms 1000000)
(defconstant rate 100)          ; bytes per millisecond
(defconstant burst 1000)        ; bytes
(defstruct bucket (tokens u64) (last u64))
(defmap buckets :type :hash :key u32 :value bucket :max-entries 256)
(defmap dropped :type :hash :key u32 :value u64 :max-entries 256)
;; results: 0 passed, 1 dropped, 2 new sources, 3 bytes passed, 4 not IPv4
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defprog big-ratelimit (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 34) data-end)
      (return XDP_PASS))
    (unless (= (load u16 data 12) (htons #x0800))
      (incf (getmap results 4))
      (return XDP_PASS))
    (let ((src (load u32 data 26))
          (now (* (ntohs (load u16 data 18)) ns-per-ms))
          (cost (- data-end data)))
      (let ((b (getmap buckets src)))
        (when (= b 0)
          (let ((n (make-bucket)))
            (setf (bucket-tokens n) burst
                  (bucket-last n) now)
            (map-update buckets src n BPF_NOEXIST)
            (incf (getmap results 2)))
          (setf b (getmap buckets src))
          (when (= b 0)
            (return XDP_PASS)))
        (let ((elapsed (if (> now (bucket-last b)) (- now (bucket-last b)) 0))
              (tokens (bucket-tokens b)))
          (setf tokens (+ tokens (/ (* elapsed rate) ns-per-ms)))
          (when (> tokens burst)
            (setf tokens burst))
          (setf (bucket-last b) now)
          (if (>= tokens cost)
              (progn
                (setf (bucket-tokens b) (- tokens cost))
                (incf (getmap results 0))
                (incf (getmap results 3) cost)
                XDP_PASS)
              (progn
                (setf (bucket-tokens b) tokens)
                (incf (getmap results 1))
                (incf (getmap dropped src))
                XDP_DROP)))))))
