;; expect: tests/errors/global-struct-init.lisp:2:13: error: an array global starts at 0; only an integer one takes another value
(defvar buf 1 :type (array u8 8))
(defvar buf2 0 :type (array u8 8))
