;; expect: tests/errors/map-unknown-type.lisp:2:17: error: unknown map type ':hashmap' (expected :hash, :array, :percpu-hash, :percpu-array, :ringbuf, :prog-array, :lpm-trie, :lru-hash, ...)
(defmap m :type :hashmap :key u32 :value u64 :max-entries 64)
