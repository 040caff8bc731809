;; big-syslat — (bench) a syscall latency tracker on raw tracepoints: sys_enter records the
;; start (time and syscall id) per thread, sys_exit finds it, computes the latency, and keeps
;; per-syscall count, total, maximum and error count plus a log2 latency histogram, then
;; forgets the start. A production tracker reads (ktime-get-ns); here the clock is a logical
;; one, an event counter in a map bumped by every event, so both twins see the same times.
;; Proves: raw tracepoint args read from the context, a struct value keyed by pid_tgid,
;; a missing start on exit, signed return values, a computed histogram key.
;; twin-args: --ctx 00000000000000000300000000000000 --ctx 00000000000000002700000000000000
;; twin-args: --ctx 0000000000000000feffffffffffffff --ctx 00000000000000000000000000000000 --repeat 2
(defstruct start (ts u64) (id u64))
(defmap starts :type :hash :key u64 :value start :max-entries 1024)
(defmap clock :type :array :key u32 :value u64 :max-entries 1)
;; per syscall id: count, total, max, errors
(defmap counts :type :hash :key u64 :value u64 :max-entries 256)
(defmap totals :type :hash :key u64 :value u64 :max-entries 256)
(defmap maxima :type :hash :key u64 :value u64 :max-entries 256)
(defmap errors :type :hash :key u64 :value u64 :max-entries 256)
(defmap lat-hist :type :array :key u32 :value u64 :max-entries 64)
;; results: 0 enters, 1 exits, 2 exits without a start
(defmap results :type :array :key u32 :value u64 :max-entries 4)

(defun tick ()
  (let ((c (map-lookup clock 0)))
    (if (= c 0)
        0
        (progn
          (store u64 c 0 (+ (load u64 c 0) 7))
          (load u64 c 0)))))

(defprog big-sys-enter (:type :raw-tracepoint :section "raw_tp/sys_enter")
  (let ((s (make-start)))
    (setf (start-ts s) (tick)
          (start-id s) (load u64 ctx 8))
    (map-update starts (get-current-pid-tgid) s BPF_ANY)
    (incf (getmap results 0))
    0))

(defprog big-sys-exit (:type :raw-tracepoint :section "raw_tp/sys_exit")
  (let* ((now (tick))
         (key (get-current-pid-tgid))
         (ret (load u64 ctx 8))
         (s (getmap starts key)))
    (incf (getmap results 1))
    (when (= s 0)
      (incf (getmap results 2))
      (return 0))
    (let ((id (start-id s))
          (lat (- now (start-ts s))))
      (remmap starts key)
      (incf (getmap counts id))
      (incf (getmap totals id) lat)
      (when (> lat (getmap maxima id))
        (setf (getmap maxima id) lat))
      (when (s< ret 0)
        (incf (getmap errors id)))
      (incf (getmap lat-hist (log2 lat)))
      (cast u32 lat))))
