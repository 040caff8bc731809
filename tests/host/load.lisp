;;; (load FILE) in a session file: host forms of another file evaluated (kiln gen lisp's
;;; output is loaded so); kiln forms refused; a missing file and an error inside are errors,
;;; the latter at its place in the loaded file.
(load "tests/host/load/ok.lisp")
(format t "~a ~a~%" (twice 21) *loaded*)
(format t "~a~%" (handler-case (load "tests/host/load/kiln.lisp") (error (e) (format nil "refused: ~a" e))))
(format t "~a~%" (handler-case (load "tests/host/load/none.lisp") (error (e) (format nil "~a" e))))
(load "tests/host/load/bad.lisp")
(format t "not reached~%")
