;;; fentry.lisp — an fentry program counting calls of do_nanosleep
;;; (tests/suites/attach-calls.sh; a locked-down kernel refuses it at load).
(defmap attach-hits :type :array :key u32 :value u64 :max-entries 1)

(defprog attach-fe (:type :fentry :section "fentry/do_nanosleep")
  (incf (getmap attach-hits 0))
  0)
