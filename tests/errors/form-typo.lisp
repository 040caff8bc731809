;; expect: tests/errors/form-typo.lisp:5:14: error: unknown function or form 'wen' in (wen (> 1 0) XDP_DROP); did you mean when, let or rem?
;; a misspelt form or macro is named with the nearest ones
(defprog p (:type :xdp)
  (progn
    (return (wen (> 1 0) XDP_DROP))
    XDP_PASS))
