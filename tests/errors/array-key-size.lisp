;; expect: tests/errors/array-key-size.lisp:2:34: error: a :array map's key is 4 bytes, not 8
(defmap counts :type :array :key u64 :value u64 :max-entries 8)
