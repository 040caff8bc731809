;; expect: tests/errors/ringbuf-not-pow2.lisp:2:44: error: ringbuf :max-entries 12288 must be a power of two and a multiple of the page size (4096)
(defmap events :type :ringbuf :max-entries 12288)
