;; expect: tests/errors/targs-assign-arg.lisp:3:9: error: cannot assign 'prev': a program's arguments are read-only (bind a copy with let)
(defprog on-switch (:type :tp-btf :section "tp_btf/sched_switch")
  (setf prev 0)
  0)
