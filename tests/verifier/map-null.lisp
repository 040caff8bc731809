;;; map-null.lisp — reads through a hash map lookup's result without testing it for 0.
;; expect: map-null 7:5 R0 invalid mem access 'map_value_or_null'
;; hint: (when-let ((v (map-lookup m key))) ...)
(defmap seen :type :hash :key u32 :value u64 :max-entries 64)
(defprog count-seen (:type :xdp)
  (let ((v (map-lookup seen 1)))
    (load u64 v 0)))
