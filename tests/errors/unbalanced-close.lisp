;; expect: tests/errors/unbalanced-close.lisp:2:59: error: unbalanced ')': no form is open here
(defmap m :type :array :key u32 :value u64 :max-entries 4))
