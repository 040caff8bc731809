;; expect: tests/errors/global-too-wide.lisp:2:21: error: 300 does not fit small's type (1 bytes, unsigned)
(defparameter small 300 :type u8)
