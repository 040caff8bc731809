;; expect: tests/errors/asm-helper.lisp:3:17: error: unknown helper 'map_lookup_elm' in asm; did you mean map-lookup-elem?
(defprog p (:type :xdp)
  (asm () (call map_lookup_elm))
  0)
