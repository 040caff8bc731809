;; expect: tests/errors/tracepoint-no-section.lisp:2:12: error: a :tracepoint program needs :section "tracepoint/TARGET"
(defprog p (:type :tracepoint) 0)
