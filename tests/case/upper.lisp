;; upper.lisp — a program written as a Common Lisp programmer in upper case might write it.
;; Keywords (:TYPE :ARRAY), special forms (LET IF WHEN), macros (INCF, a DEFMACRO with
;; backquote), built-in functions (GETMAP), types (U32), constants (XDP_PASS, xdp_drop,
;; Xdp_Pass) match in any case; the names the user gives keep their spelling in the object
;; (the map Counts, the struct ConnectionEvent in BTF) and are found in any case (M is m).
;; Character literals keep their case: #\A is 65, #\a is 97.
(DEFMAP M :TYPE :ARRAY :KEY-SIZE 4 :VALUE-SIZE 8 :MAX-ENTRIES 1)
(DEFMAP Counts :TYPE :ARRAY :KEY U32 :VALUE U64 :MAX-ENTRIES 8)
(DEFSTRUCT ConnectionEvent (Pid U32) (Port U16) (Proto U8))
(DEFMAP Events :TYPE :HASH :KEY U32 :VALUE ConnectionEvent :MAX-ENTRIES 4)
(DEFCONSTANT +Slots+ 8)

(DEFMACRO Bump (SLOT &OPTIONAL (BY 1))
  `(INCF (GETMAP counts ,slot) ,By))

(DEFUN Twice (X) (* x 2))

(DEFPROG Upper (:TYPE :XDP)
  (LET ((K 0))
    (INCF (GETMAP m K)))
  (LET ((X (- (CTX DATA-END) (ctx data))))
    (IF (= X 0)
        (BUMP 1)
        (bump 2 (twice X)))
    (WHEN (> x 10)
      (BUMP 3 #\A)
      (Bump 4 #\a))
    (bump 5 +SLOTS+)
    (LET ((E (MAKE-CONNECTIONEVENT)))
      (SETF (CONNECTIONEVENT-PID E) 42
            (connectionevent-port E) X)
      (MAP-UPDATE EVENTS (LET ((Z 7)) Z) E 0))
    (BUMP 6 (CASE X (0 XDP_DROP) (T Xdp_Pass)))
    XDP_PASS))
