;; expect: tests/errors/map-entries-zero.lisp:3:61: error: :max-entries 0 is out of range
(defconstant slots 0)
(defmap table :type :array :key u32 :value u64 :max-entries slots)
