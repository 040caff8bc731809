;; expect: tests/errors/global-bad-option.lisp:2:13: error: defvar takes a name, a value and :type TYPE: (defvar NAME INIT :type TYPE)
(defvar x 0 :kind u32)
