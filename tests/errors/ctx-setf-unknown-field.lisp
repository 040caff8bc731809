;; expect: tests/errors/ctx-setf-unknown-field.lisp:3:14: error: unknown context field 'priority-mark' for a :tc program (struct __sk_buff)
(defprog p (:type :tc)
  (setf (ctx priority-mark) 7)
  TC_ACT_OK)
