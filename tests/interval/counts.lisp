;;; counts.lisp — for `kiln run --interval` (tests/suites/interval.sh): getppid calls counted
;;; by the caller's tgid (in a hash and a per-CPU hash), and a map the program leaves alone that the test fills with
;;; `kiln map set` through the --pin directory, to check --top, --sort and --clear exactly.
(defmap calls :type :hash :key u32 :value u64 :max-entries 1024)
(defmap scores :type :hash :key u32 :value u64 :max-entries 64)
(defmap pcalls :type :percpu-hash :key u32 :value u64 :max-entries 1024)

(defprog on-getppid (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (let ((tgid (cast u32 (ash (get-current-pid-tgid) -32))))
    (incf (getmap calls tgid))
    (incf (getmap pcalls tgid)))
  0)

;; histograms the test fills: bucket (log2 x) and bucket (x - 0) / 10, from 100 on one
(defmap lat :type :hash :key u32 :value u64 :max-entries 64 :display :log2-hist)
(defmap pct :type :array :key u32 :value u64 :max-entries 11 :display (:linear-hist 0 100 10))
