;; expect: tests/errors/setf-array-field.lisp:5:11: error: field 'comm' is not a scalar; assign its elements
(defstruct event (pid u32) (comm (array char 16)))
(defprog p (:type :xdp)
  (let ((e (stack-buffer 20)))
    (setf (event-comm e) 0)
    XDP_PASS))
