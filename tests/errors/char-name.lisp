;; expect: tests/errors/char-name.lisp:2:18: error: unknown character name '#\comma'
(defconstant sep #\comma)
(defprog p (:type :xdp) sep)
