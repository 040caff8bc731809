;; key-widths — integer key expressions stored with each map's own key size.
;; Proves: the same 64-bit key expression used on maps with 1-, 2-, 4- and 8-byte keys is
;; truncated to the key size (so #x1_0000_0005 is key 5 in a u32-keyed map and stays whole
;; in a u64-keyed one); values likewise stored with the value size (a u32 value keeps the low
;; 32 bits, and getmap on it reads 4 bytes); an array index above max-entries misses
;; (getmap gives 0, incf does nothing since an array cannot grow); a struct key built by
;; accessors with its padding zeroed.
(defstruct k3
  (a u8)
  (b u32)
  (c u16))

(defmap by-u8 :type :hash :key u8 :value u64 :max-entries 16)
(defmap by-u16 :type :hash :key u16 :value u64 :max-entries 16)
(defmap by-u32 :type :hash :key u32 :value u64 :max-entries 16)
(defmap by-u64 :type :hash :key u64 :value u64 :max-entries 16)
(defmap small-vals :type :hash :key u32 :value u32 :max-entries 16)
(defmap by-k3 :type :hash :key k3 :value u64 :max-entries 16)
(defmap arr :type :array :key u32 :value u64 :max-entries 4)
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defprog key-widths (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 16) data-end)
      (return XDP_PASS))
    (let* ((x (load u64 data 0))
           (k (+ #x100000000 (logand x #x0f0f)))
           (kk (stack-buffer (sizeof k3))))
      (incf (getmap by-u8 k))
      (incf (getmap by-u16 k) 2)
      (incf (getmap by-u32 k) 3)
      (incf (getmap by-u64 k) 4)
      (incf (getmap by-u8 (+ k 256)) 10)
      (setf (getmap small-vals k) (+ x #x100000000))
      (incf (getmap results 0) (getmap small-vals k))
      (incf (getmap results 1) (getmap by-u32 (logand k #xffffffff)))
      (incf (getmap results 2) (getmap by-u64 (logand k #xffffffff)))
      (incf (getmap arr (+ 2 (logand x 7))) 5)
      (incf (getmap results 3) (getmap arr (+ 2 (logand x 7))))
      (setf (k3-a kk) (load u8 data 8)
            (k3-b kk) (load u32 data 9)
            (k3-c kk) (load u16 data 13))
      (incf (getmap by-k3 kk) (load u8 data 15))
      (incf (getmap results 4) (getmap by-k3 kk))
      (incf (getmap results 5) (sizeof k3))
      (cast u32 (getmap small-vals k)))))
