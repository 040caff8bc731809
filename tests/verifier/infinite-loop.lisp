;;; infinite-loop.lisp — a loop whose condition nothing in its body changes: the verifier
;; finds the same state at the loop's head again.
;; expect: unbounded-loop 7:18 infinite loop detected at insn 3
;; hint: use (dotimes (i N) ...) with a constant N
(defprog spin (:type :xdp)
  (let ((n 0))
    (loop :while (> (ctx ingress-ifindex) 0)
      (setf n 1))
    n))
