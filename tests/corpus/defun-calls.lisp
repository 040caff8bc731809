;; defun-calls — helper functions called from a program and from each other.
;; Proves: defun with 1 to 5 arguments, a defun calling other defuns, a defun with its own
;; let, cond and a bounded loop, argument order (non-commutative bodies), a defun's value
;; used in arithmetic, as a map key and as a condition, and calls in a loop.
(defmap results :type :array :key u32 :value u64 :max-entries 16)

(defun fold16 (x)
  (let* ((x (+ (logand x #xffff) (>> x 16)))
         (x (+ (logand x #xffff) (>> x 16))))
    x))

(defun clamp (x lo hi)
  (cond ((< x lo) lo)
        ((> x hi) hi)
        (t x)))

(defun sub4 (a b c d)
  (- (- (- a b) c) d))

(defun mix5 (a b c d e)
  (+ (* a 31) (* b 17) (* c 7) (logxor d e)))

(defun mix-fold (a b c d e)
  (fold16 (mix5 a b c d e)))

(defun popcount8 (x)
  (let ((n 0))
    (dotimes (i 8)
      (when (logand (>> x i) 1)
        (incf n)))
    n))

(defun is-odd (x)
  (= (logand x 1) 1))

(defprog defun-calls (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 20) data-end)
      (return XDP_PASS))
    (let ((a (load u32 data 0))
          (b (load u32 data 4))
          (c (load u32 data 8))
          (d (load u16 data 12))
          (e (load u16 data 14)))
      (incf (getmap results 0) (fold16 (+ a b c)))
      (incf (getmap results 1) (clamp d 100 2048))
      (incf (getmap results 2) (sub4 a b c d))
      (incf (getmap results 3) (sub4 d c b a))
      (incf (getmap results 4) (mix5 a b c d e))
      (incf (getmap results 5) (mix-fold e d c b a))
      (incf (getmap results (+ 6 (logand (popcount8 (load u8 data 19)) 3))))
      (when (is-odd (load u8 data 18))
        (incf (getmap results 10)))
      (let ((total 0))
        (dotimes (i 4)
          (incf total (clamp (load u8 data (+ i 16)) 10 200)))
        (incf (getmap results 11) total))
      (cast u32 (mix-fold a b c d e)))))
