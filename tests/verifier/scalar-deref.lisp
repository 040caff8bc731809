;;; scalar-deref.lisp — a number read from the context used as a pointer.
;; expect: scalar-deref 5:3 R1 invalid mem access 'scalar'
;; hint: a plain number is used as a pointer
(defprog deref (:type :xdp)
  (load u32 (ctx ingress-ifindex) 0))
