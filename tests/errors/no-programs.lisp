;; expect: tests/errors/no-programs.lisp:1:1: error: no defprog or defmap in this file
(defconstant port 80)
(defstruct flow (saddr u32) (daddr u32))
