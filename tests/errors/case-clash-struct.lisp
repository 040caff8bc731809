;; expect: tests/errors/case-clash-struct.lisp:4:12: error: type 'POINT' differs only in case from 'Point' at tests/errors/case-clash-struct.lisp:2:12; names match without regard to case (as Common Lisp reads them), so rename one
(defstruct Point (x u32) (y u32))
(defstruct Point-3d (x u32))
(DEFSTRUCT POINT (X U32))
