;; a Common Lisp function kiln's host side does not have
(format t "start~%")
(make-hash-table :test 'equal)
