;; expect: tests/errors/block-comment.lisp:2:1: error: unterminated block comment '#|'
#| never closed
(defprog p (:type :xdp) XDP_PASS)
