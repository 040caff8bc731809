;; expect: tests/errors/ctx-readonly.lisp:3:9: error: context field 'len' cannot be written in a :tc program
(defprog p (:type :tc)
  (setf (ctx len) 0)
  TC_ACT_OK)
