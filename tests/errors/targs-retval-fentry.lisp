;; expect: tests/errors/targs-retval-fentry.lisp:3:3: error: (retval) is the traced function's return value, in :fexit and :fmod-ret programs
(defprog on-sleep (:type :fentry :section "fentry/do_nanosleep")
  (retval))
