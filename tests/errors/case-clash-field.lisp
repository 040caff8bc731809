;; expect: tests/errors/case-clash-field.lisp:2:29: error: Event's field 'PID' differs only in case from 'pid' at tests/errors/case-clash-field.lisp:2:17; names match without regard to case (as Common Lisp reads them), so rename one
(defevent Event [:pid :u32] [:PID :u32])
