;; expect: tests/errors/tracepoint-path.lisp:4:40: error: '../../../tmp/x' is not a tracepoint name: CATEGORY/EVENT, each of letters, digits and '_' as tracefs names them (sched/sched_switch)
;; a tracepoint name is checked against tracefs's names before any file is opened by it:
;; this one would have read /tmp/x/format
(defprog p (:type :tracepoint :section "tracepoint/../../../tmp/x")
  (ctx prev-pid))
