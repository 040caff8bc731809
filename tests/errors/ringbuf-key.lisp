;; expect: tests/errors/ringbuf-key.lisp:2:41: error: a :ringbuf map has no key or value; remove :key/:value options
(defmap events :type :ringbuf :key-size 4 :max-entries 4096)
