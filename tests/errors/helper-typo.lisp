;; expect: tests/errors/helper-typo.lisp:4:13: error: unknown function or form 'get-curent-pid-tgid' in (get-curent-pid-tgid); did you mean get-current-pid-tgid?
;; a misspelt helper is named with the nearest ones
(defprog p (:type :xdp)
  (let ((x (get-curent-pid-tgid)))
    (if (> x 0) XDP_PASS XDP_DROP)))
