;; expect: tests/errors/global-twice.lisp:3:15: error: global variable 'pid' is defined twice
(defvar pid 0 :type u32)
(defparameter pid 0 :type u32)
