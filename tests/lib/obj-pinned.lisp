;;; obj-pinned.lisp — `:pinning :by-name` maps, one with a name longer than the kernel's 15
;;; characters: libbpf pins it by its full name and the kernel keeps the first 15.
(defmap very-long-map-name-here :type :array :key u32 :value u64 :max-entries 4 :pinning :by-name)
(defmap pinned-hash :type :hash :key u32 :value u64 :max-entries 8 :pinning :by-name)

(defprog touch-pinned (:type :xdp)
  (incf (getmap very-long-map-name-here 0))
  (incf (getmap pinned-hash 1))
  XDP_PASS)
