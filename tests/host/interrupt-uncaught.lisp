;; Ctrl-C with no handler-case: kiln ends with status 130 and says where it was
(format t "waiting~%")
(loop (sleep 1))
