;; expect: tests/errors/map-missing-type.lisp:2:1: error: defmap 'm' needs :type
(defmap m :key u32 :value u64 :max-entries 64)
