;;; obj-fentry.lisp — an fentry counter on do_nanosleep (a locked-down kernel refuses it).
(defmap hits :type :array :key u32 :value u64 :max-entries 1)

(defprog count-nanosleep (:type :fentry :section "fentry/do_nanosleep")
  (incf (getmap hits 0))
  0)
