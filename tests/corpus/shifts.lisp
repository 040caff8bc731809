;; shifts — <<, >> (logical) and >>> (arithmetic) with amounts read from the packet.
;; Proves: 64-bit shifts whose amount is taken modulo 64 as the BPF instructions do
;; (amounts 64, 65, 127, 128, 200, 255 below), >>> keeping the sign bit and >> not, shifts of
;; a constant by a variable amount, and constant shifts across the 32-bit boundary.
;; Crafted inputs: x (8 bytes little-endian), then amounts n and m (1 byte each).
;; twin-args: --input 01000000000000804000000000000000 --input 1032547698badcfe417f000000000000 --input 00000000000000803fc8000000000000
;; twin-args: --input ffffffffffffff7fff80000000000000 --input 0100000000000000201f000000000000 --input ffffffffffffffff0001000000000000
(defmap results :type :array :key u32 :value u64 :max-entries 16)

(defprog shifts (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 10) data-end)
      (return XDP_PASS))
    (let ((x (load u64 data 0))
          (n (load u8 data 8))
          (m (load u8 data 9)))
      (incf (getmap results 0) (<< x n))
      (incf (getmap results 1) (>> x n))
      (incf (getmap results 2) (>>> x n))
      (incf (getmap results 3) (<< x m))
      (incf (getmap results 4) (>> x m))
      (incf (getmap results 5) (>>> x m))
      (incf (getmap results 6) (<< 1 n))
      (incf (getmap results 7) (>>> #x8000000000000000 m))
      (incf (getmap results 8) (>> #x8000000000000000 m))
      (incf (getmap results 9) (<< x 32))
      (incf (getmap results 10) (>> x 33))
      (incf (getmap results 11) (>>> x 63))
      (incf (getmap results 12) (<< (logand x #xff) 56))
      (incf (getmap results 13) (>>> (<< x 56) 60))
      (incf (getmap results 14) (>> (<< x n) m))
      (cast u32 (logxor (<< x n) (>> x m) (>>> x 7))))))
