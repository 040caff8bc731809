;; tracing-load — tracing programs that BPF_PROG_TEST_RUN cannot run: they must load.
;; Proves: :tracepoint with its required :section, reading the tracepoint record through the
;; context pointer ((load u32 ctx 12) is sched_process_exec's pid), :kprobe (loads even
;; where kprobes cannot attach), :perf-event with its default section, :license "GPL" as
;; tracing needs; the shared map stays empty on both sides (nothing ran).
;; (:fentry is not here: this machine's kernel refuses to load any fentry program, even
;; clang's, with EPERM.)
(defmap calls :type :hash :key u32 :value u64 :max-entries 64)

(defprog on-exec (:type :tracepoint :section "tracepoint/sched/sched_process_exec"
                  :license "GPL")
  (incf (getmap calls (load u32 ctx 12)))
  0)

(defprog on-open (:type :kprobe :section "kprobe/do_sys_openat2" :license "GPL")
  (incf (getmap calls 2))
  0)

(defprog on-sample (:type :perf-event :license "GPL")
  (incf (getmap calls 3))
  0)
