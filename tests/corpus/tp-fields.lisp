;; tp-fields — a tracepoint program reading its record's fields by name, as the reference
;; says: "(ctx FIELD) ... tracepoint arguments by name from the tracepoint's format".
;; Proves: (ctx pid) and (ctx old-pid) of sched/sched_process_exec resolve to offsets 12 and
;; 16 of the record (the format file's `pid` and `old_pid`, signed 32-bit) and the program
;; loads. Load-only: BPF_PROG_TEST_RUN cannot run tracepoint programs.
(defmap calls :type :hash :key u32 :value u64 :max-entries 64)

(defprog on-exec (:type :tracepoint :section "tracepoint/sched/sched_process_exec")
  (incf (getmap calls (ctx pid)))
  (incf (getmap calls 0) (ctx old-pid))
  0)
