;; expect: tests/errors/section-mismatch-sock-addr.lisp:2:53: error: section "cgroup/sock_create" does not suit a :cgroup-sock-addr program (expected "cgroup/...")
(defprog redirect (:type :cgroup-sock-addr :section "cgroup/sock_create")
  1)
