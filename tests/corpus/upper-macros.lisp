;; upper-macros — macros.lisp written in upper case, as a Common Lisp programmer might.
;; Proves: keywords, special forms, macros, lambda-list keywords (&OPTIONAL &BODY &KEY),
;; types, constants and built-ins match in any case; the maps and programs the twin compares
;; by name are defined in lower case and used in upper case (RESULTS is results).
;; The original comment:
;; macros — defmacro as in Common Lisp, used the way kiln's own conveniences are written.
;; Proves: backquote with , and ,@; &optional with a default, &rest, &body, &key and
;; destructuring of a nested lambda list; gensym for a hygienic temporary; compile-time
;; arithmetic in a macro body; a macro expanding into another macro; and macros expanding
;; into top-level forms: a defprog (two programs are defined by one macro each call).
(DEFMAP results :TYPE :ARRAY :KEY U32 :VALUE U64 :MAX-ENTRIES 16)

(DEFMACRO BUMP (SLOT &OPTIONAL (BY 1))
  `(INCF (GETMAP RESULTS ,SLOT) ,BY))

(DEFMACRO WITH-IPV4 ((IP DATA DATA-END) &BODY BODY)
  `(WHEN (AND (<= (+ ,DATA 34) ,DATA-END)
              (= (LOAD U16 ,DATA 12) (HTONS #X0800)))
     (LET ((,IP (+ ,DATA 14)))
       ,@BODY)))

(DEFMACRO SWAP (A B)
  (LET ((TMP (GENSYM)))
    `(LET ((,TMP ,A))
       (SETF ,A ,B
             ,B ,TMP))))

(DEFMACRO SUM-OF (&REST XS)
  `(+ ,@XS))

(DEFMACRO FIELD (PTR &KEY (OFFSET 0) (TYPE 'U8))
  `(LOAD ,TYPE ,PTR ,OFFSET))

(DEFMACRO SLOT-OF (N)
  (* N 2))

(DEFMACRO DEF-COUNTER (NAME SLOT)
  `(DEFPROG ,NAME (:TYPE :XDP)
     (BUMP ,SLOT)
     (BUMP (+ ,SLOT 1) (LET ((DATA (CTX DATA)) (DATA-END (CTX DATA-END)))
                         (IF (> (+ DATA 1) DATA-END) 0 (LOAD U8 DATA 0))))
     XDP_PASS))

(DEF-COUNTER count-a 10)
(DEF-COUNTER count-b 12)

(DEFPROG upper-macros (:TYPE :XDP)
  (LET ((DATA (CTX DATA))
        (DATA-END (CTX DATA-END)))
    (WITH-IPV4 (IP DATA DATA-END)
      (LET ((A (FIELD IP :OFFSET 12 :TYPE U32))
            (B (FIELD IP :OFFSET 16 :TYPE U32))
            (TMP 5))
        (SWAP A B)
        (BUMP 0)
        (BUMP 1 (- A B))
        (BUMP (SLOT-OF 1) (SUM-OF A TMP (FIELD IP) (FIELD IP :OFFSET 9)))
        (BUMP 3 TMP)))
    (BUMP 4 (SUM-OF))
    (BUMP 5 (SUM-OF 1 2 3))
    XDP_PASS))
