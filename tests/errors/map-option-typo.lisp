;; expect: tests/errors/map-option-typo.lisp:2:43: error: unknown defmap option ':max-entires' (expected :type, :key, :value, :key-size, :value-size, :value-type, :max-entries, :map-flags, :pinning, :inner-map, :event or :display)
(defmap m :type :hash :key u32 :value u64 :max-entires 64)
