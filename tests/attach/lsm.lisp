;;; lsm.lisp — an LSM program on the file_open hook, counting opens and allowing them all
;;; (returns 0) (tests/suites/attach-calls.sh; a locked-down kernel refuses it at load).
(defmap attach-hits :type :array :key u32 :value u64 :max-entries 1)

(defprog attach-lsm (:type :lsm :section "lsm/file_open")
  (incf (getmap attach-hits 0))
  0)
