;; expect: tests/errors/key-size-mismatch.lisp:2:46: error: :key-size 8 does not match the size 4 of :key
(defmap conns :type :hash :key u32 :key-size 8 :value u64 :max-entries 1024)
