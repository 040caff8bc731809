;; expect: tests/errors/unknown-toplevel.lisp:2:1: error: unknown top-level form 'defprogram'
(defprogram p (:type :xdp) XDP_PASS)
