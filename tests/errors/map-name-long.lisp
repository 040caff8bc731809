;; expect: tests/errors/map-name-long.lisp:2:9: error: map name 'connection-tracking-table' is longer than the kernel's 15 characters
(defmap connection-tracking-table :type :hash :key u32 :value u64 :max-entries 8)
