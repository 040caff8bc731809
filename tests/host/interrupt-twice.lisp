;; the first Ctrl-C reaches handler-case; a second one ends kiln at once
(handler-case (progn (format t "waiting~%") (loop (sleep 1)))
  (sb-sys:interactive-interrupt ()
    (format t "caught~%")
    (loop (sleep 1))))
