;; expect: tests/errors/queue-key.lisp:2:29: error: a :queue map has values and no key; remove :key/:key-size
(defmap q :type :queue :key u32 :value u32 :max-entries 8)
