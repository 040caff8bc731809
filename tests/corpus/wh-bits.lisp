;; wh-bits — log2, ash, atomic-add and stack-addr.
;; Proves: (log2 X) is floor(log2 X) over all 64 bits — of 0 and 1 (both 0), of every 2^k and
;; 2^k-1 for k in 0..63 computed at run time in a loop, of packet words above 2^32, and folded
;; for constants; (ash X N) shifts left for N > 0 and logically right for N < 0 (a value with
;; its top bit set gives 15 for -60, not -1), also with N 0 and -63, on run-time and constant
;; values; (atomic-add P OFF V [u32|u64]) at offsets 0, 8 and 12 of a map value, u64 by
;; default, a u32 add of #xffffffff wrapping in its own 4 bytes without carrying into the
;; next, kiln's short (atomic-add P V u32), and atomic adds on a stack buffer read back;
;; (stack-addr VAR) handed to map-update-ptr and map-lookup-ptr as the key, and read.
;; Left out, a kiln bug reported with this pair: two stack-addr in one call,
;; (map-update-ptr byport (stack-addr port) (stack-addr val) 0), and a stack-addr pointer
;; kept in a variable across another map operation: the copy's stack bytes are a temporary
;; whose life ends at the address, so the next temporary reuses them (key = value).
;; Crafted inputs as in wh-pkt-xdp.
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500002d1234400001060000ac1000010a00000204d201bbdeadbeef000000005010ffff0000000068656c6c6f
;; twin-args: --input 0200000000020200000000010800450000140000
;; twin-args: --input 02000000000202000000000108004500002312344000801100000a010203c0a807099c400007000f000078797a7a793132
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --input 020000000002020000000001080045000028123440003f060000c0a807090a0102030050c738ffffffff000000005011ffff00000000
(defmap results :type :array :key u32 :value u64 :max-entries 16)
(defmap cells :type :array :key u32 :value-size 16 :max-entries 1)
(defmap byport :type :hash :key u32 :value u64 :max-entries 32)

(defprog bt-bits (:type :xdp)
  (let ((data (xdp-data))
        (data-end (xdp-data-end)))
    (when (> (+ data 54) data-end)
      (return XDP_PASS))
    (let ((w (load u64 data 0))
          (seq (ntohl (load u32 data 38)))
          (ttl (load u8 data 22))
          (sum 0))
      ;; log2 of 2^k and 2^k - 1, at run time (k is the loop's variable)
      (dotimes (k 64)
        (incf sum (+ (* (log2 (<< 1 k)) 100) (log2 (- (<< 1 k) 1)))))
      (setf (getmap results 0) (+ sum (log2 0) (* 1000 (log2 1)) (* 10000 (log2 #x100000000))
                                  (* 100000 (log2 #xffffffffffffffff))))
      (incf (getmap results 1) (+ (* (log2 w) 10000) (* (log2 seq) 100) (log2 ttl)))
      (incf (getmap results 2) (log2 (- seq 1)))
      ;; ash
      (incf (getmap results 3) (ash w -60))
      (incf (getmap results 4) (+ (ash seq 4) (ash seq -3) (ash seq 0)))
      (incf (getmap results 5) (+ (ash w -63) (ash ttl 56) (ash #xf0 -4) (ash 3 62)))
      ;; atomic-add on a map value: offsets, widths, wrap
      (when-let ((p (map-lookup cells 0)))
        (atomic-add p 0 ttl)
        (atomic-add p 8 #xffffffff u32)
        (atomic-add p 12 seq u32)
        (atomic-add p ttl u32))
      ;; and on the stack
      (let ((s (struct-alloc 16)))
        (atomic-add s 0 seq)
        (atomic-add s 8 ttl u32)
        (atomic-add s 8 ttl u32)
        (atomic-add s 12 #xffffffff u32)
        (incf (getmap results 6) (+ (load u64 s 0) (load u32 s 8) (load u32 s 12))))
      ;; stack-addr: key and value by address
      (let ((port (ntohs (load u16 data 36)))
            (val (+ ttl (* seq 1000))))
        (let ((vb (struct-alloc 8)))
          (store u64 vb 0 val)
          (map-update-ptr byport (stack-addr port) vb 0))
        (when-let ((q (map-lookup-ptr byport (stack-addr port))))
          (incf (getmap results 7) (load u64 q 0)))
        (incf (getmap results 8) (load u32 (stack-addr port) 0)))
      (+ (log2 seq) (ash ttl -2)))))
