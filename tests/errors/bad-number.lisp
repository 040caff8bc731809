;; expect: tests/errors/bad-number.lisp:2:19: error: malformed number '#xZZ'
(defconstant mask #xZZ)
