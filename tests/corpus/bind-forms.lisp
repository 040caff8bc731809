;; bind-forms — when-let and if-let, the binding forms that test for non-zero.
;; Proves: when-let with one and with several bindings (the body runs only when every value
;; is non-zero, later inits are not evaluated once one is zero: a map counter shows it),
;; a scalar as well as a pointer binding, the value of a when-let (its body's last form, or
;; 0 when skipped), if-let choosing between two values, and the bound pointer used to write
;; through (store) and to read (load) a map value.
(defmap table :type :hash :key u32 :value u64 :max-entries 16)
(defmap results :type :array :key u32 :value u64 :max-entries 16)

(defprog bind-forms (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 16) data-end)
      (return XDP_PASS))
    (let ((a (load u8 data 14))
          (b (load u8 data 15))
          (k (logand (load u8 data 13) 7)))
      (setf (getmap table 3) 33)
      (setf (getmap table 5) 55)
      (incf (getmap results 0)
            (when-let ((p (map-lookup table k)))
              (store u64 p 0 (+ (load u64 p 0) 1))
              (load u64 p 0)))
      (when-let ((x a)
                 (y (progn (incf (getmap results 1)) b))
                 (p (map-lookup table (+ (logand y 1) 3))))
        (incf (getmap results 2) (+ x y (load u64 p 0))))
      (incf (getmap results 3) (if-let (p (map-lookup table k)) (load u64 p 0) 1000))
      (incf (getmap results 4) (if-let (z (logand a b)) (* z 2) 7))
      (if-let (p (map-lookup table (+ k 8)))
        (incf (getmap results 5))
        (incf (getmap results 6)))
      (cast u32 (+ (* a 256) b k)))))
