;; expect: tests/warnings/unused-let.lisp:4:10: warning: 'len' is bound but never used (name it _len or declare it (declare (ignore len)) if that is meant)
;;; unused-let.lisp — a let binding nothing reads; the other one is read.
(defprog p (:type :xdp)
  (let ((len (- (ctx data-end) (ctx data)))
        (q (ctx ingress-ifindex)))
    (if (= q 1) XDP_DROP XDP_PASS)))
