;; map-reuse — a map looked up again with the same key where the first lookup is known to
;; have found its element: gvn makes it one lookup, and dse drops the store of the second's
;; key. Proves: the value read through the first pointer after a store through it, a lookup
;; of another key between, a key the update did not add (a miss).
;; twin-args: --input 03000000000000000000000000000000
;; twin-args: --input 07000000000000000000000000000000
(defmap counts :type :hash :key u32 :value u64 :max-entries 16)
(defmap results :type :array :key u32 :value u64 :max-entries 4)

(defprog map-reuse (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 8) data-end)
      (return XDP_PASS))
    (let ((k (logand (load u8 data 0) 7)))
      (when (< k 4)
        (map-update counts k 100 BPF_ANY))
      (when-let ((p (map-lookup counts k)))
        (store u64 p 0 (+ (load u64 p 0) 5))
        (incf (getmap results 1) (getmap counts k))
        (incf (getmap results 2) (getmap counts (+ k 1)))
        (return XDP_DROP))
      (incf (getmap results 3))
      XDP_PASS)))
