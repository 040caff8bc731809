;; expect: tests/errors/deftracepoint-path.lisp:3:1: error: in macro 'deftracepoint' (defined at <prelude>:114): 'sched/../sched' is not a tracepoint name: CATEGORY/EVENT, each of letters, digits and '_' as tracefs names them (sched/sched_switch) (at tests/errors/deftracepoint-path.lisp:3:16)
;; deftracepoint's event is checked the same way
(deftracepoint "sched/../sched" sw)
(defprog p (:type :xdp) XDP_PASS)
