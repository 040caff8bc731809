;; expect: tests/errors/ctx-readonly-sock-ops.lisp:4:9: error: context field 'replylong-1' cannot be written in a :sock-ops program
;; only reply (replylong 0) and sk-txhash are writable
(defprog ops (:type :sock-ops)
  (setf (ctx replylong 1) 0)
  1)
