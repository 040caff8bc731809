;;; partial.lisp — two programs, the second of which the test makes fail to attach
;;; (tests/suites/attach-calls.sh): the first one's link must be detached again.
(defmap attach-hits :type :array :key u32 :value u64 :max-entries 1)

(defprog attach-pfe (:type :fentry :section "fentry/do_nanosleep")
  (incf (getmap attach-hits 0))
  0)

(defprog attach-pkp (:type :kprobe :section "kprobe/do_nanosleep")
  (incf (getmap attach-hits 0))
  0)
