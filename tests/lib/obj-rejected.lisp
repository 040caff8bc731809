;;; obj-rejected.lisp — a program the verifier refuses: it reads the packet unchecked.
(defprog unchecked (:type :xdp)
  (let ((data (ctx data)))
    (load u32 data 20)))
