;; expect: tests/errors/progarray-value.lisp:2:57: error: a :prog-array map's value is 4 bytes, not 8
(defmap jumps :type :prog-array :key-size 4 :value-size 8 :max-entries 8)
