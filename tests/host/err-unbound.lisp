;; an unbound variable: file:line:col of the symbol, the line, a caret
(defun show (x) (format t "~a~%" (+ x y)))
(show 1)
