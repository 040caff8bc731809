;; expect: tests/errors/event-store-array.lisp:6:27: error: field 'comm' is not an integer (16 bytes): store into it with memcpy, or zero it with zero-event-field
(defevent ev [:pid :u32] [:comm :char 16])
(defmap m :type :array :key u32 :value ev :max-entries 1)
(defprog p (:type :xdp)
  (when-let ((e (map-lookup m 0)))
    (store-event-imm e ev :comm 0))
  XDP_PASS)
