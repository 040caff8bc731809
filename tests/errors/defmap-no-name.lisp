;; expect: tests/errors/defmap-no-name.lisp:2:1: error: defmap needs a name: (defmap NAME :type T :max-entries N ...): (defmap :type :hash :key u32 :value u64 ...)
(defmap :type :hash :key u32 :value u64 :max-entries 64)
