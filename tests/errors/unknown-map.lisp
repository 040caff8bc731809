;; expect: tests/errors/unknown-map.lisp:3:17: error: unknown map 'counts'
(defprog p (:type :xdp)
  (incf (getmap counts 0))
  XDP_PASS)
