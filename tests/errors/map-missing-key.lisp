;; expect: tests/errors/map-missing-key.lisp:2:1: error: defmap 'sessions' needs :key or :key-size
(defmap sessions :type :hash :value u64 :max-entries 1024)
