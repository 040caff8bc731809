;; big-tailcall — (bench) a tail-call dispatcher as XDP pipelines build them: the entry
;; program classifies the packet (TCP, UDP, ICMP, other) and tail-calls the handler at that
;; index of a :prog-array; each handler is a program of its own (per-port counts for TCP
;; and UDP, per-type counts for ICMP). The harness loads no handlers into the array, so the
;; dispatcher's tail calls fall through to its fallback path, which counts the misses; the
;; handlers are run on every input directly.
;; Proves: tail-call's fall-through, four programs sharing maps in one object, the same
;; counts per handler as clang.
;; twin-args: --input 0200000000020200000000010800450000281234400040115ce2c0a801050a00000214e9003500147650717171717171717171717171
;; twin-args: --input 0200000000020200000000010800450000201234400040011493c0a801050a000002080000000001000170696e67
(defconstant h-tcp 0)
(defconstant h-udp 1)
(defconstant h-icmp 2)
(defconstant h-other 3)
(defmap handlers :type :prog-array :key-size 4 :value-size 4 :max-entries 4)
;; results: 0..3 dispatched per handler, 4 missed tail calls, 5 not IPv4, 6 TCP SYNs,
;; 7 ICMP echo requests
(defmap results :type :array :key u32 :value u64 :max-entries 8)
(defmap ports :type :hash :key u32 :value u64 :max-entries 64)

(defprog big-dispatch (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 34) data-end)
      (return XDP_PASS))
    (unless (= (load u16 data 12) (htons #x0800))
      (incf (getmap results 5))
      (return XDP_PASS))
    (let* ((proto (load u8 data 23))
           (idx (cond ((= proto 6) h-tcp)
                      ((= proto 17) h-udp)
                      ((= proto 1) h-icmp)
                      (t h-other))))
      (incf (getmap results idx))
      (tail-call ctx handlers idx)
      (incf (getmap results 4))
      XDP_PASS)))

(defprog big-h-tcp (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (or (> (+ data 54) data-end) (/= (load u8 data 23) 6))
      (return XDP_PASS))
    (incf (getmap ports (ntohs (load u16 data 36))))
    (when (= (logand (load u8 data 47) #x12) #x02)
      (incf (getmap results 6)))
    (if (= (ntohs (load u16 data 36)) 23) XDP_DROP XDP_PASS)))

(defprog big-h-udp (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (or (> (+ data 42) data-end) (/= (load u8 data 23) 17))
      (return XDP_PASS))
    (incf (getmap ports (logior (ntohs (load u16 data 36)) #x10000)))
    XDP_PASS))

(defprog big-h-icmp (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (or (> (+ data 42) data-end) (/= (load u8 data 23) 1))
      (return XDP_PASS))
    (incf (getmap ports (logior (load u8 data 34) #x20000)))
    (when (= (load u8 data 34) 8)
      (incf (getmap results 7)))
    XDP_PASS))
