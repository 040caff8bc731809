;; expect: tests/errors/section-mismatch-cgroup-sock.lisp:3:45: error: section "sk_lookup" does not suit a :cgroup-sock program (expected "cgroup/sock...")
;; :cgroup-sock means sock-ops with section "sockops" (as in Whistler), and nothing else
(defprog audit (:type :cgroup-sock :section "sk_lookup")
  1)
