;;; host-events.lisp — clj-ebpf's event functions on kiln's host side (`kiln run` of a session
;;; file): a defevent and a make-event-def bind their names to their definitions, which
;;; event-size, event-fields, event-field-type, event-field-offset and event-field-size read,
;;; unquoted or quoted.
(defmap pkts :type :ringbuf :max-entries 4096)
(defevent conn [:ts :u64] [:pid :u32] [:sport :u16] [:comm :char 16])
(eval-when (:compile-toplevel :load-toplevel :execute)
  (make-event-def 'pkt '([:len :u16] [:proto :u8] [:pad :u8 3] [:addr :u32])))
(format t "conn ~a ~a ~a ~a ~a~%" (event-size conn) (event-fields conn)
        (event-field-type conn :comm) (event-field-offset conn :sport) (event-field-size conn :comm))
(format t "pkt ~a ~a ~a ~a~%" (event-size pkt) (event-field-offset 'pkt :addr)
        (mapcar (lambda (f) (event-field-type pkt f)) (event-fields pkt)) (event-field-size pkt :pad))
(handler-case (event-field-size pkt :nope)
  (error (e) (format t "error: ~a~%" e)))
;; specs computed on the host: the defevent joins the program after the file's forms
(let ((specs (mapcar (lambda (f) (list f :u16)) '(:src :dst))))
  (make-event-def 'computed specs)
  (format t "computed ~a ~a~%" (event-size computed) (event-field-offset computed :dst)))
