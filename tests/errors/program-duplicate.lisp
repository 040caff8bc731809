;; expect: tests/errors/program-duplicate.lisp:3:10: error: program 'filter' is defined twice
(defprog filter (:type :xdp) XDP_PASS)
(defprog filter (:type :xdp) XDP_DROP)
