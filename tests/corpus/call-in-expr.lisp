;; call-in-expr — calls inside expressions whose other operands are already computed.
;; Proves: temporaries of a half-evaluated expression survive a helper call or a defun call
;; in a later operand (helpers clobber r0-r5): (+ a (getmap ...) b (getmap ...) ...) with
;; packet values in between; defun calls as arguments of defun calls (argument registers
;; of the outer call are being filled while the inner call runs); a helper's result as
;; another helper's argument (map-update of a getmap value); a map lookup inside a
;; comparison inside a condition; left-to-right evaluation order of operands with side
;; effects, checked through a counter whose successive values are weighted differently.
(defmap results :type :array :key u32 :value u64 :max-entries 16)
(defmap table :type :array :key u32 :value u64 :max-entries 8)

(defun fold16 (x)
  (+ (logand x #xffff) (>> x 16)))

(defun lin3 (a b c)
  (+ (* a 100) (* b 10) c))

(defun tick ()
  (let ((n (+ (getmap table 7) 1)))
    (setf (getmap table 7) n)
    n))

(defprog call-in-expr (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 24) data-end)
      (return XDP_PASS))
    (let ((a (load u32 data 0))
          (b (load u32 data 4))
          (c (load u32 data 8))
          (d (load u32 data 12)))
      (setf (getmap table 1) (logand a #xff)
            (getmap table 2) (logand b #xff)
            (getmap table 3) (logand c #xff))
      (incf (getmap results 0)
            (+ a (getmap table 1) b (getmap table 2) c (* (getmap table 3) d) (getmap table 1)))
      (incf (getmap results 1)
            (- (* a 3) (fold16 (+ b (getmap table 2))) (fold16 (* c (fold16 d)))))
      (incf (getmap results 2) (lin3 (fold16 a) (fold16 b) (fold16 (lin3 c d (fold16 a)))))
      (incf (getmap results 3) (lin3 (tick) (tick) (tick)))
      (incf (getmap results 4) (+ (* (tick) 1000) (* (tick) 100) (tick)))
      (map-update table 4 (+ (getmap table 1) (getmap table 2)) BPF_ANY)
      (incf (getmap results 5) (getmap table 4))
      (when (> (+ (getmap table 1) a) (+ (getmap table 2) b))
        (incf (getmap results 6)))
      (incf (getmap results 7) (if (= (getmap table 3) (logand c #xff)) (fold16 d) (fold16 c)))
      (incf (getmap results 8)
            (logxor (fold16 (getmap table 1)) (lin3 a (getmap table 2) (fold16 (getmap table 3)))))
      (cast u32 (+ (tick) (* a (fold16 b)))))))
