;; expect: tests/errors/global-pointer.lisp:2:19: error: a global variable cannot hold a pointer; give it an integer, array or struct type
(defvar p 0 :type (* u8))
