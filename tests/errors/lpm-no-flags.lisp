;; expect: tests/errors/lpm-no-flags.lisp:2:1: error: a :lpm-trie map needs :map-flags 1 (BPF_F_NO_PREALLOC)
(defmap routes :type :lpm-trie :key-size 8 :value-size 4 :max-entries 64)
