;; places — setf, incf and decf on every kind of place.
;; Proves: setf with several pairs assigned in order (a later value sees an earlier
;; assignment), incf/decf on variables with and without a delta (decf below zero wraps to
;; 2^64 - n), on getmap of an :array (an atomic add; decf adds the negated delta), and on
;; struct fields through a map-lookup pointer (u8, u16, u32 and u64 fields, each wrapping
;; at its own width when stored); a setf of a place whose key is computed.
;; twin-args: --repeat 3
(defstruct counters
  (small u8)
  (mid u16)
  (word u32)
  (big u64))

(defmap results :type :array :key u32 :value u64 :max-entries 16)
(defmap ctrs :type :array :key u32 :value counters :max-entries 2)

(defprog places (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 14) data-end)
      (return XDP_PASS))
    (let ((a 0)
          (b 0)
          (c 10))
      (setf a (load u8 data 0)
            b (+ a 1))
      (incf a)
      (incf b 10)
      (decf c)
      (decf c (load u8 data 1))
      (setf (getmap results 0) a
            (getmap results 1) b
            (getmap results 2) c)
      (decf (getmap results 3) 5)
      (decf (getmap results 4))
      (incf (getmap results 5) (load u8 data 2))
      (setf (getmap results (+ 6 (logand (load u8 data 3) 7))) (load u16 data 12))
      (when-let ((p (map-lookup ctrs (logand (load u8 data 5) 1))))
        (incf (counters-small p) 100)
        (incf (counters-mid p) 20000)
        (incf (counters-word p) #x7fffffff)
        (decf (counters-big p) (load u8 data 4))
        (setf (counters-small p) (+ (counters-small p) 1)
              (counters-mid p) (+ (counters-mid p) (counters-small p))))
      (cast u32 (+ a (* b 256) (* c 65536))))))
