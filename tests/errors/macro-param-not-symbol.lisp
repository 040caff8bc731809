;; expect: tests/errors/macro-param-not-symbol.lisp:4:25: error: in macro 'bump' (defined at tests/errors/macro-param-not-symbol.lisp:2): a parameter must be a symbol, a list to destructure, or (NAME DEFAULT) after &optional or &key (at tests/errors/macro-param-not-symbol.lisp:2:32)
(defmacro bump (slot &optional 1) slot)
(defmap m :type :array :key u32 :value u64 :max-entries 1)
(defprog p (:type :xdp) (bump 0))
