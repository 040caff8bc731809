;; expect: tests/warnings/several.lisp:5:10: warning: 'a' is bound but never used (name it _a or declare it (declare (ignore a)) if that is meant)
;; expect: tests/warnings/several.lisp:7:14: warning: 'c' is bound but never used (name it _c or declare it (declare (ignore c)) if that is meant)
;;; several.lisp — warnings come in source order, each with its own caret; nested scopes too.
(defprog p (:type :xdp)
  (let ((a 1) (b 2))
    (when (= b 2)
      (let ((c 3))
        XDP_PASS))))
