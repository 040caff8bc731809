;; expect: tests/errors/ctx-readonly-sock-addr.lisp:3:9: error: context field 'user-family' cannot be written in a :cgroup-sock-addr program
(defprog redirect (:type :cgroup-sock-addr :section "cgroup/connect4")
  (setf (ctx user-family) AF_INET)
  1)
