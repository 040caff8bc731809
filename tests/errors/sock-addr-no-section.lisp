;; expect: tests/errors/sock-addr-no-section.lisp:2:19: error: a :cgroup-sock-addr program needs :section "cgroup/TARGET"
(defprog redirect (:type :cgroup-sock-addr)
  1)
