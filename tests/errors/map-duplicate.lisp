;; expect: tests/errors/map-duplicate.lisp:4:9: error: map 'counts' is defined twice
(defmap counts :type :array :key u32 :value u64 :max-entries 16)
(defmap drops :type :array :key u32 :value u64 :max-entries 16)
(defmap counts :type :percpu-array :key u32 :value u64 :max-entries 16)
