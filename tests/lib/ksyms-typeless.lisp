;; A typeless kernel symbol: schedule's address, as libbpf finds it in /proc/kallsyms, stored
;; where user space reads it (tests/suites/ksyms.sh compares it with /proc/kallsyms).
(defksym schedule)
(defvar addr 0)

(defprog probe (:type :raw-tracepoint :section "raw_tp/sys_enter")
  (setf addr schedule)
  0)
