;;; map-value-bounds.lisp — reads 8 bytes at offset 8 of an 8-byte map value.
;; expect: map-value-bounds 7:5 R0 min value is outside of the allowed memory range
;; hint: past the end of the map value
(defmap totals :type :array :key u32 :value u64 :max-entries 4)
(defprog past-end (:type :xdp)
  (when-let ((v (map-lookup totals 0)))
    (load u64 v 8)))
