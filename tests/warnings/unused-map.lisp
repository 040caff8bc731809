;; expect: tests/warnings/unused-map.lisp:4:1: warning: map 'spare' is defined but no program uses it
;;; unused-map.lisp — a map no program uses (the other is used; the ring buffer's kiln-made
;; drops counter and a map-in-map's template are never warned about).
(defmap spare :type :array :key u32 :value u64 :max-entries 4)
(defmap counts :type :array :key u32 :value u64 :max-entries 4)
(defmap inner :type :array :key u32 :value u32 :max-entries 1)
(defmap outer :type :array-of-maps :key u32 :max-entries 2 :inner-map inner)
(defevent hit [:pid :u32])
(defmap events :type :ringbuf :max-entries 4096)
(defprog p (:type :tracepoint :section "tracepoint/syscalls/sys_enter_kill")
  (incf (getmap counts 0))
  (map-lookup outer 0)
  (with-event (e hit events)
    (setf (hit-pid e) 1))
  0)
