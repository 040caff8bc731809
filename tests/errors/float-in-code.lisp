;; expect: tests/errors/float-in-code.lisp:4:15: error: the float 0.5 in BPF code: BPF has no floating point (a macro may compute with floats, but what it gives the code must be an integer)
;; BPF has no floating point: a float written in a program is refused where it is
(defprog p (:type :xdp)
  (let ((x (* 0.5 2)))
    x))
