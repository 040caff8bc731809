;; expect: tests/errors/string-escape.lisp:2:38: error: unknown escape '\q' in string
(defprog p (:type :xdp :section "xdp\q")
  XDP_PASS)
