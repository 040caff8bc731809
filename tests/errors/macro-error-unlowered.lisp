;; expect: tests/errors/macro-error-unlowered.lisp:7:5: error: in macro 'bad' (defined at tests/errors/macro-error-unlowered.lisp:4): bad wants no 1 (at tests/errors/macro-error-unlowered.lisp:4:19)
;; An error inside an expansion in a body lowering never lowers (a dotimes of no iterations):
;; the assigned-variable walk met it and hid it, and the program compiled.
(defmacro bad (x) (error (format nil "bad wants no ~a" x)))
(defprog p (:type :xdp)
  (dotimes (i 0)
    (bad 1))
  2)
