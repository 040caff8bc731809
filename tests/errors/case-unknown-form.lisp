;; expect: tests/errors/case-unknown-form.lisp:6:4: error: unknown function or form 'GETMAPP' in (GETMAPP COUNTS 1); did you mean getmap or setmap?
;; An unknown name in upper case is shown as written, and the names near it are found in
;; any case (GETMAPP is one letter from getmap).
(DEFMAP Counts :TYPE :ARRAY :KEY U32 :VALUE U64 :MAX-ENTRIES 1)
(DEFPROG P (:TYPE :XDP)
  (GETMAPP COUNTS 1)
  XDP_PASS)
