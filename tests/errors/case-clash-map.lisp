;; expect: tests/errors/case-clash-map.lisp:5:9: error: map 'counts' differs only in case from 'Counts' at tests/errors/case-clash-map.lisp:4:1; names match without regard to case (as Common Lisp reads them), so rename one
;; kiln keeps a name as written for the object, so Counts and counts would be two ELF names
;; for what Common Lisp reads as one symbol: an error naming both, not a silent pick.
(defmap Counts :type :array :key u32 :value u64 :max-entries 1)
(defmap counts :type :array :key u32 :value u64 :max-entries 1)
(defprog p (:type :xdp) (incf (getmap Counts 0)) xdp_pass)
