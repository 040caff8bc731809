;; map-zoo — every map type of seeds 000/001/004 that needs no inner-map description,
;; defined in one object next to an XDP program that uses the ones XDP can use.
;; Proves: :stack-trace, :perf-event-array, :cgroup-array, :lru-percpu-hash, :ringbuf and
;; :prog-array definitions load with the kernel's size rules (the harness compares type,
;; key size, value size, max entries and flags of every map; contents only where they are
;; data); perf-event-output into a perf-event array with no reader (its return value, an
;; errno, is deterministic); ringbuf-output of a stack buffer; --repeat 2.
;; twin-args: --repeat 2
(defmap stacks :type :stack-trace :key-size 4 :value-size (* 8 127) :max-entries 64)
(defmap perf-out :type :perf-event-array :key-size 4 :value-size 4 :max-entries 4)
(defmap cgroups :type :cgroup-array :key-size 4 :value-size 4 :max-entries 2)
(defmap lru-pc :type :lru-percpu-hash :key u32 :value u64 :max-entries 16)
(defmap ring :type :ringbuf :max-entries 4096)
(defmap progs :type :prog-array :key-size 4 :value-size 4 :max-entries 2)
(defmap results :type :array :key u32 :value u64 :max-entries 4)

(defprog map-zoo (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end))
        (buf (stack-buffer 8)))
    (when (> (+ data 14) data-end)
      (return XDP_PASS))
    (store u64 buf 0 (load u64 data 0))
    (incf (getmap results 0) (perf-event-output ctx perf-out BPF_F_CURRENT_CPU buf 8))
    (incf (getmap results 1) (ringbuf-output ring buf 8 0))
    (incf (getmap lru-pc (load u16 data 12)) (load u8 data 13))
    XDP_PASS))
