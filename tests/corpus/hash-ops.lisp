;; hash-ops — the map operations on a :hash map with a 2-byte key.
;; Proves: integer keys stored with the map's key size (u16 here); getmap of an absent key
;; is 0; map-update with BPF_NOEXIST, BPF_EXIST and the default flags, and its return value
;; (0, or a negative errno such as -EEXIST/-ENOENT seen as a 64-bit unsigned value); remmap
;; and its return value; setf of getmap on a hash (insert or replace); incf of getmap
;; inserting the delta when absent and adding when present; decf of a present entry.
;; twin-args: --repeat 2
(defmap table :type :hash :key u16 :value u64 :max-entries 32)
(defmap results :type :array :key u32 :value u64 :max-entries 16)

(defprog hash-ops (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 14) data-end)
      (return XDP_PASS))
    (let* ((etype (ntohs (load u16 data 12)))
           (key (logand etype #x1f))
           (len (- data-end data))
           (before (getmap table key)))
      (incf (getmap results 0) before)
      (incf (getmap results 1) (map-update table key len BPF_NOEXIST))
      (incf (getmap results 2) (map-update table (+ key 1) len BPF_EXIST))
      (map-update table 1000 7)
      (decf (getmap table 1000) 2)
      (incf (getmap results 3) (getmap table 1000))
      (when (> len 1000)
        (remmap table key))
      (incf (getmap results 4) (remmap table 999))
      (incf (getmap results 5) (getmap table key))
      (setf (getmap table (+ key 100)) (* len 2))
      (incf (getmap table 2000) len)
      (incf (getmap table (+ etype #x10000)))
      (incf (getmap results 6) (getmap table 2000))
      (cast u32 (+ before (getmap table (+ key 100)))))))
