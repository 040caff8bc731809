;;; counters.lisp — the CLI suite's program: a tracepoint counter on getppid(), an XDP and a
;;; tc counter, and a map with a struct value for BTF-decoded output.
(defstruct pair (a u32) (b u64))
(defmap calls :type :array :key u32 :value u64 :max-entries 1)
(defmap packets :type :array :key u32 :value u64 :max-entries 2)
(defmap pairs :type :hash :key u32 :value pair :max-entries 16)
(defmap percpu :type :percpu-hash :key u32 :value u32 :max-entries 16)

(defprog count-getppid (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (incf (getmap calls 0))
  0)

(defprog count-xdp (:type :xdp)
  (incf (getmap packets 0))
  XDP_PASS)

(defprog count-tc (:type :tc :section "tc/ingress")
  (incf (getmap packets 1))
  TC_ACT_OK)
