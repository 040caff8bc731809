;; limits: each one a Lisp error that handler-case catches (or a print cut short with
;; "..."), never a crash, an abort or memory without end
(defun msg (e n) (let ((s (format nil "~a" e))) (subseq s 0 (min n (length s)))))
;; (eval <200,000 nested progn>): evaluation depth counts every nested form, not only calls
(let ((f 1))
  (dotimes (i 200000) (setf f (list 'progn f)))
  (handler-case (eval f) (error (e) (format t "nested progn: ~a~%" (msg e 31)))))
;; a runaway recursion
(defun down (n) (+ 1 (down (+ n 1))))
(handler-case (down 0) (error (e) (format t "recursion: ~a~%" (msg e 31))))
;; a deep recursion that fits still runs (5,000 calls: some 20,000 levels of forms and calls,
;; within what an ASan build's larger frames leave of the C stack, about 34,000)
(defun count-down (n) (if (= n 0) 0 (+ 1 (count-down (- n 1)))))
(format t "5000 calls deep: ~a~%" (count-down 5000))
;; sizes
(handler-case (make-array 100000000000) (error (e) (format t "~a~%" e)))
(handler-case (make-array -1) (error (e) (format t "~a~%" e)))
(format t "make-array 1000: ~a~%" (length (make-array 1000)))
(handler-case (format nil "~1000000000a" 1) (error (e) (format t "~a~%" e)))
;; circular lists: printed round once, refused by the functions that walk to the end
(let ((l (list 1 2 3)))
  (setf (cdr (cdr (cdr l))) l)
  (format t "circular: ~a~%" l)
  (handler-case (length l) (error (e) (format t "~a~%" e)))
  (handler-case (reverse l) (error (e) (format t "~a~%" e)))
  (handler-case (mapcar #'1+ l) (error (e) (format t "~a~%" e)))
  (let ((m (list 1 2 3)))
    (setf (cdr (cdr (cdr m))) m)
    (handler-case (equal l m) (error (e) (format t "~a~%" e)))))
;; a list that holds itself: 64 levels, then "..."
(let ((l (list 1 2)))
  (setf (car l) l)
  (format t "self: ~a characters~%" (length (format nil "~a" l))))
;; shared structure 2^40 leaves wide: the printer stops at its size limit
(let ((x (list 1 1)))
  (dotimes (i 40) (setf x (list x x)))
  (let ((s (format nil "~a" x)))
    (format t "wide: ~a characters, ends ~a~%" (length s) (subseq s (- (length s) 3)))))
;; integers past 64 bits are an error (no bignums), at the edges too
(format t "past 64 bits: ~a ~a ~a~%" (handler-case (+ 9223372036854775807 1) (error () 'error))
        (handler-case (/ -9223372036854775808 -1) (error () 'error)) (mod -9223372036854775808 -1))
