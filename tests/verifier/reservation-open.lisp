;;; reservation-open.lisp — a return inside with-event leaves the ring buffer reservation
;; open; the verifier's message is about the exit, kiln points at the reservation.
;; expect: unreleased-ref 8:3 BPF_EXIT instruction in main prog would lead to reference leak
;; hint: every path must ringbuf-submit or ringbuf-discard it
(defevent hit [:pid :u32] [:sig :u32])
(defmap events :type :ringbuf :max-entries 4096)
(defprog on-kill (:type :tracepoint :section "tracepoint/syscalls/sys_enter_kill")
  (with-event (e hit events)
    (setf (hit-sig e) (ctx sig))
    (when (= (hit-sig e) 0)
      (return 0)))
  0)
