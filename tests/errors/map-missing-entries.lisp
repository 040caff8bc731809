;; expect: tests/errors/map-missing-entries.lisp:2:1: error: defmap 'm' needs :max-entries
(defmap m :type :hash :key u32 :value u64)
