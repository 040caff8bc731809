;; csum — checksums with the csum-diff helper over packet memory and stack buffers.
;; Proves: a helper taking packet pointers with a size (after a bounds check), 0 as a null
;; pointer argument with size 0, a stack buffer filled with store and passed as both "from"
;; and "to", a helper result used as the next call's seed, and 64-bit results folded to
;; 16 bits; a valid IPv4 header sums to #xffff, which the verdict counts.
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defun fold (sum)
  (let* ((s (+ (logand sum #xffff) (>> sum 16)))
         (s (+ (logand s #xffff) (>> s 16))))
    s))

(defprog csum (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 34) data-end)
      (return XDP_PASS))
    (unless (= (load u16 data 12) (htons #x0800))
      (return XDP_PASS))
    (let* ((ip (+ data 14))
           (full (csum-diff 0 0 ip 20 0))
           (buf (stack-buffer 8)))
      (store u32 buf 0 (load u32 ip 12))
      (store u32 buf 4 (load u32 ip 16))
      (let* ((addrs (csum-diff 0 0 buf 8 0))
             (same (csum-diff buf 8 buf 8 full))
             (without (csum-diff buf 8 0 0 full)))
        (incf (getmap results 0) full)
        (incf (getmap results 1) addrs)
        (incf (getmap results 2) same)
        (incf (getmap results 3) without)
        (incf (getmap results 4) (fold full))
        (when (= (fold full) #xffff)
          (incf (getmap results 5)))
        (cast u32 (fold (+ addrs without)))))))
