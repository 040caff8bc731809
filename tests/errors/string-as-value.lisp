;; expect: tests/errors/string-as-value.lisp:4:24: error: string "eth0" is not an expression here
(defmap by-dev :type :hash :key u32 :value u64 :max-entries 64)
(defprog p (:type :xdp)
  (incf (getmap by-dev "eth0"))
  XDP_PASS)
