;;; flows.lisp — for `kiln run --metrics` (tests/suites/metrics.sh): maps the test fills through
;;; the --pin directory with `kiln map set`, so every value served is known exactly: a counter
;;; keyed by a struct (an :ipv4 address, a port, a char-array name), one keyed by an integer, a
;;; per-CPU one (summed), a log2 histogram, and signed values (a gauge). The program only makes the object attachable.
(defstruct flow (addr :ipv4) (port u16) (pad u16) (tag (array char 8)))
(defmap bytes :type :hash :key flow :value u64 :max-entries 16)
(defmap hits :type :hash :key u32 :value u64 :max-entries 16)
(defmap pkts :type :percpu-hash :key u32 :value u64 :max-entries 16)
(defmap lat :type :hash :key u32 :value u64 :max-entries 64 :display :log2-hist)
(defmap temps :type :hash :key u32 :value i32 :max-entries 4)     ; signed: a gauge

(defprog on-getppid (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  0)
