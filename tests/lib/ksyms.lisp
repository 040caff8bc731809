;; Kernel symbols: the per-CPU runqueues read through this CPU's and CPU 0's pointer (as
;; runqlen does), the per-CPU int bpf_prog_active, and a typeless symbol's address.
;; tests/lib/ksyms.bpf.c is its clang twin (tests/suites/ksyms.sh).
(defksym runqueues :type rq)
(defksym bpf-prog-active :type int)
(defksym schedule)
(defvar nr 0)
(defvar nr0 0)
(defvar active 0)
(defvar addr 0)

(defprog probe (:type :raw-tracepoint :section "raw_tp/sys_enter")
  (setf nr (-> (this-cpu-ptr runqueues) nr-running))
  (when-let ((rq (per-cpu-ptr runqueues 0)))
    (setf nr0 (-> rq nr-running)))
  (setf active (load i32 (this-cpu-ptr bpf-prog-active) 0))
  (setf addr schedule)
  0)
