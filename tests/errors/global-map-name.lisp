;; expect: tests/errors/global-map-name.lisp:3:9: error: 'counts' is a map already; a global variable needs a name of its own
(defmap counts :type :array :key u32 :value u64 :max-entries 1)
(defvar counts 0 :type u64)
