;; helpers — kernel helpers called by name, with results that are deterministic.
;; Proves: (ktime-get-ns) twice (only facts about the values are stored: non-zero and
;; monotonic), (tail-call ctx PROGS INDEX) into an empty :prog-array falling through to the
;; next form, with a constant and with a packet-derived index; (get-smp-processor-id)
;; called and bounded (its value is not stored: it is the CPU, not the program's result);
;; map helpers by their kernel names (map-lookup-elem, map-update-elem, map-delete-elem)
;; with pointer keys and values in stack buffers; a helper's value passed straight to
;; another form without a variable.
(defmap jump :type :prog-array :key-size 4 :value-size 4 :max-entries 4)
(defmap results :type :array :key u32 :value u64 :max-entries 8)
(defmap scratch :type :hash :key u32 :value u64 :max-entries 4)

(defprog helpers (:type :xdp)
  (let ((t0 (ktime-get-ns))
        (t1 (ktime-get-ns)))
    (incf (getmap results 0) (if (>= t1 t0) 1 0))
    (incf (getmap results 1) (if (> t0 0) 1 0))
    (tail-call ctx jump 0)
    (incf (getmap results 2))
    (incf (getmap results 3) (if (< (get-smp-processor-id) 4096) 1 0))
    (let ((data (ctx data))
          (data-end (ctx data-end))
          (k (stack-buffer 4))
          (v (stack-buffer 8)))
      (when (> (+ data 14) data-end)
        (return XDP_PASS))
      (tail-call ctx jump (load u8 data 13))
      (store u32 k 0 (load u8 data 12))
      (store u64 v 0 (load u64 data 0))
      (incf (getmap results 4) (map-update-elem scratch k v BPF_ANY))
      (when-let ((p (map-lookup-elem scratch k)))
        (incf (getmap results 5) (load u64 p 0)))
      (incf (getmap results 6) (map-delete-elem scratch k))
      (incf (getmap results 7) (map-delete-elem scratch k))
      XDP_PASS)))
