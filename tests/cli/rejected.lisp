;;; rejected.lisp — a program the verifier refuses: it reads the packet without a bounds check.
(defprog unchecked (:type :xdp)
  (let ((data (ctx data)))
    (load u32 data 20)))
