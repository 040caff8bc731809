;; expect: tests/errors/unbalanced-open.lisp:2:1: error: unbalanced '(': no matching ')' before the end of the file
(defprog p (:type :xdp)
  (let ((x 1))
    x)
