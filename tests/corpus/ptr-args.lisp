;; ptr-args — defuns that take pointers, the way parsing helpers are written.
;; Proves: a defun receiving the packet pointers (data, data-end) and doing its own bounds
;; check before loading; a defun receiving a stack buffer and filling it, read back by the
;; caller; a defun receiving a map value pointer from map-lookup and updating it in place;
;; a defun returning a pointer (into the packet) that the caller checks and dereferences.
;; (BPF-to-BPF calls cannot carry packet pointers; the compiler must inline or otherwise
;; make these work, which is what the reference's "or inlined" allows.)
(defmap results :type :array :key u32 :value u64 :max-entries 8)
(defmap stats :type :array :key u32 :value u64 :max-entries 2)

(defun ip-proto (data data-end)
  (if (> (+ data 34) data-end)
      0
      (if (= (load u16 data 12) (htons #x0800))
          (load u8 data 23)
          0)))

(defun fill-pair (buf a b)
  (store u32 buf 0 a)
  (store u32 buf 4 b)
  (+ a b))

(defun bump-value (p delta)
  (store u64 p 0 (+ (load u64 p 0) delta))
  (load u64 p 0))

(defun l4-header (data data-end)
  (if (> (+ data 38) data-end)
      0
      (+ data 34)))

(defprog ptr-args (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end))
        (buf (stack-buffer 8)))
    (let ((proto (ip-proto data data-end)))
      (incf (getmap results 0) proto)
      (incf (getmap results 1) (fill-pair buf (load u8 buf 0) (+ proto 1000)))
      (incf (getmap results 2) (+ (load u32 buf 0) (* (load u32 buf 4) 3)))
      (when-let ((p (map-lookup stats 0)))
        (incf (getmap results 3) (bump-value p (+ proto 1))))
      (when-let ((l4 (l4-header data data-end)))
        (when (<= (+ l4 4) data-end)
          (incf (getmap results 4) (ntohs (load u16 l4 2)))))
      (cast u32 proto))))
