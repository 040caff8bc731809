;; imm64 — 64-bit and negative constants, and the 32-bit immediates that BPF sign-extends.
;; Proves: defconstant with literal and computed values, constants above 2^32 (ld_imm64),
;; negative constants, and constants such as #x80000000, #xffffffff and 2^31 which do not
;; fit a sign-extended 32-bit immediate, used in +, logand, logior, logxor, * and compares;
;; comparing against #x7fffffffffffffff; constants stored into map values whole.
;; Crafted inputs: x (u64) then y (u32), little-endian.
;; twin-args: --input 0000000000000080ff00008000000000 --input feffffff000000000500000000000000
;; twin-args: --input ffffffff00000000ffffff7f00000000 --input ffffffffffffff7f0000008000000000
(defconstant big #x123456789abcdef0)
(defconstant high-bit #x8000000000000000)
(defconstant all-ones #xffffffffffffffff)
(defconstant neg-seven -7)
(defconstant low-mask (- (<< 1 32) 1))

(defmap results :type :array :key u32 :value u64 :max-entries 24)

(defprog imm64 (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 16) data-end)
      (return XDP_PASS))
    (let ((x (load u64 data 0))
          (y (load u32 data 8)))
      (incf (getmap results 0) (+ x big))
      (incf (getmap results 1) (logxor x high-bit))
      (incf (getmap results 2) (logand x all-ones))
      (incf (getmap results 3) (+ y neg-seven))
      (incf (getmap results 4) (* y -1))
      (incf (getmap results 5) (logand x #xffffffff00000000))
      (incf (getmap results 6) (logior y #x100000000))
      (incf (getmap results 7) (if (> x #x7fffffffffffffff) 1 0))
      (incf (getmap results 8) (if (= (logand y #xff) #xff) #xdeadbeefcafebabe -2147483648))
      (incf (getmap results 9) (- x 4294967296))
      (incf (getmap results 10) (+ y 2147483647))
      (incf (getmap results 11) (+ y 2147483648))
      (incf (getmap results 12) (logand x #x80000000))
      (incf (getmap results 13) (logand x #xffffffff))
      (incf (getmap results 14) (logand x low-mask))
      (incf (getmap results 15) (if (< y #x80000000) 1 0))
      (incf (getmap results 16) (if (>= x #xffffffff) 1 0))
      (incf (getmap results 17) (* x #x100000001))
      (incf (getmap results 18) (if (s< x -1) 1 0))
      (setf (getmap results 19) big
            (getmap results 20) -1
            (getmap results 21) high-bit
            (getmap results 22) (+ neg-seven 0))
      (cast u32 (logxor x (>> big 7))))))
