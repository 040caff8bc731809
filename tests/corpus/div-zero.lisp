;; div-zero — division and modulo by a divisor that comes from the packet and is often zero.
;; Proves BPF's semantics, which kiln keeps: (/ x 0) = 0 and (mod x 0) = x, for 64-bit
;; operands, including a constant dividend over a packet divisor. The default packets give
;; a zero byte-16 divisor for the small IPv4/IPv6 frames; the crafted inputs below are
;; little-endian y (8 bytes), x (8 bytes), z (1 byte): y = 0, 1, 2^64-1, 2^32; z = 0, 3, 255.
;; twin-args: --input 0000000000000000ffffffffffffffff0000000000000000 --input 000000000000000089674523010000000300000000000000 --input 010000000000000000000000000000800000000000000000
;; twin-args: --input fffffffffffffffffeffffffffffffffff00000000000000 --input 070000000000000000000000000000000000000000000000 --input 00000000010000001032547698badcfe1000000000000000
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defprog div-zero (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 17) data-end)
      (return XDP_PASS))
    (let* ((y (load u64 data 0))
           (x (load u64 data 8))
           (z (load u8 data 16))
           (q (/ x y))
           (r (mod x y))
           (q8 (/ x z))
           (r8 (mod x z)))
      (incf (getmap results 0) q)
      (incf (getmap results 1) r)
      (incf (getmap results 2) q8)
      (incf (getmap results 3) r8)
      (incf (getmap results 4) (/ 1000 z))
      (incf (getmap results 5) (mod 1000 z))
      (incf (getmap results 6) (if (= y 0) 1 0))
      (incf (getmap results 7) (+ (/ (* r 3) (- z 1)) (mod q y)))
      (cast u32 (+ q r q8 r8)))))
