;; expect: tests/errors/macro-core-format.lisp:5:3: error: in macro 'pick' (defined at tests/errors/macro-core-format.lisp:3): no field #xFF in (a b), 2 fields (at tests/errors/macro-core-format.lisp:3:46)
;; macros run on the one Lisp core: format's ~x, as a session has it
(defmacro pick (i fields) (or (nth i fields) (error "no field #x~x in ~a, ~d fields" i fields (length fields))))
(defprog p (:type :xdp)
  (pick 255 (a b)))
