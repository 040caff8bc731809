;;; ctx-mark.lisp — a tc program that returns the mark of its __sk_buff, for test-run --ctx.
(defprog ret-mark (:type :tc)
  (ctx mark))
