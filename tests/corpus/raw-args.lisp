;; raw-args — a :raw-tracepoint program run with BPF_PROG_TEST_RUN on a given context.
;; Proves: a raw tracepoint reads its u64 arguments through the context pointer
;; ((load u64 ctx 8) is args[1]); an explicit :section for a raw tracepoint; the return
;; value and map updates compared for each --ctx (args[0], args[1] little-endian).
;; twin-args: --ctx 01000000000000003b00000000000000 --ctx ffffffffffffffff0000000000000080
;; twin-args: --ctx 00100000000000000100000000000000 --repeat 2
(defmap results :type :array :key u32 :value u64 :max-entries 8)
(defmap by-id :type :hash :key u64 :value u64 :max-entries 16)

(defprog raw-args (:type :raw-tracepoint :section "raw_tp/sys_enter")
  (let ((regs (load u64 ctx 0))
        (id (load u64 ctx 8)))
    (incf (getmap results 0) id)
    (incf (getmap results 1) (logand regs #xffff))
    (incf (getmap results 2))
    (incf (getmap results 3) (if (s< id 0) 1 0))
    (incf (getmap by-id id) regs)
    (cast u32 (+ id 1))))
