;;; rawtpw.lisp — a writable raw tracepoint program on bpf_test_finish, which the kernel
;;; passes the address of BPF_PROG_TEST_RUN's result: for the process whose tgid is in
;;; `target` (only the test's own, never another's test run) it writes 42 there, so that the
;;; test run of `probe-me` returns 42 while it is attached (ptlive.c).

(defmap target :type :array :key u32 :value u32 :max-entries 1)
(defmap runs :type :array :key u32 :value u64 :max-entries 1)

(defprog set-result (:type :raw-tracepoint-writable :section "raw_tp.w/bpf_test_finish")
  (when (= (>> (get-current-pid-tgid) 32) (getmap target 0))
    (incf (getmap runs 0))
    (let ((err (ctx u64 0)))       ; int *err, writable for 4 bytes
      (store u32 err 0 42)))
  0)

(defprog probe-me (:type :socket-filter) 0)
