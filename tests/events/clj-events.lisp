;;; clj-events.lisp — clj-ebpf's event API (seed 002) at compile time: an event made by
;;; make-event-def in eval-when instead of defevent, and the introspection forms given the
;;; event unquoted, as clj-ebpf writes them, in macros, constant expressions and program code
;;; (the quoted name still works). A getppid() sends a ppid-call event through the ring
;;; buffer; `kiln run --json` (which runs the eval-when on its host side) decodes it by its
;;; BTF. tests/events/clj-events-macro.lisp makes its event in a macro.

;; clj-ebpf's layout: packed, each field after the last. 4 + 8 + 2 + 16 = 30 bytes.
(eval-when (:compile-toplevel :load-toplevel :execute)
  (make-event-def 'ppid-call '([:pid :u32] [:seq :u64] [:layout :u16] [:comm :char 16])))

(defevent tally [:calls :u32] [:last-pid :u32] [:flags :u8])

;; the event's own description, unquoted: offset of :layout * 100 + the number of :u16 fields
(defmacro layout-code ()
  (+ (* 100 (event-field-offset ppid-call :layout))
     (loop for f in (event-fields ppid-call) count (eq (event-field-type ppid-call f) :u16))))

(defconstant flags-at (event-field-offset tally :flags))           ; unquoted: 8
(defconstant calls-bytes (event-field-size 'tally :calls))         ; quoted still: 4
(defconstant comm-bytes (event-field-size ppid-call :comm))        ; the made event: 16

(defmap events :type :ringbuf :max-entries 4096 :event ppid-call)
(defmap facts :type :array :key u32 :value u64 :max-entries 8)
(defmap tallies :type :array :key u32 :value tally :max-entries 1)

(defprog on-getppid (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (let ((pid (cast u32 (>> (get-current-pid-tgid) 32))))
    (when-let ((t (map-lookup tallies 0)))
      (store-event-field t tally :calls (+ (tally-calls t) 1))
      (store-event-field t tally :last-pid pid)
      (with-event (e ppid-call events)
        (store-event-field e 'ppid-call :pid pid)          ; quoted too
        (store-event-field e ppid-call :seq (tally-calls t))
        (store-event-imm e ppid-call :layout (layout-code))
        (get-current-comm (+ e (event-field-offset ppid-call :comm)) comm-bytes))))
  (setf (getmap facts 0) (event-size ppid-call)
        (getmap facts 1) (event-field-offset ppid-call :comm)
        (getmap facts 2) (event-field-size ppid-call :seq)
        (getmap facts 3) flags-at
        (getmap facts 4) calls-bytes
        (getmap facts 5) (event-size 'tally))
  0)
