;; expect: tests/warnings/unused-letstar-setf.lisp:6:11: warning: 'hits' is bound but never used (name it _hits or declare it (declare (ignore hits)) if that is meant)
;;; unused-letstar-setf.lisp — a variable only ever assigned is not used either; in let* the
;; first binding is read by the second, which counts.
(defprog p (:type :xdp)
  (let* ((a (ctx ingress-ifindex))
         (hits (+ a 1)))
    (setf hits 0)
    XDP_PASS))
