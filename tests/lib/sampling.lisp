;; sampling.lisp — a perf_event program that counts its samples per CPU (index: the CPU), for
;; tests/suites/sampling.sh: kiln run attaches it on every online CPU at --freq or --period.
(defmap samples :type :array :key u32 :value u64 :max-entries 64)
(defprog sample (:type :perf-event)
  (incf (getmap samples (get-smp-processor-id)))
  0)
