;;; clj-events-macro.lisp — an event made by make-event-def in a macro called at the top
;;; level (kiln's compiler collects it as a defevent): the macro also defines a constant of
;;; its size from the unquoted event, and another reads its fields' types to fill the :u8
;;; ones. A getppid() sends one through the ring buffer; `kiln run --json` decodes it by its
;;; BTF, as a defevent's.

(defmacro def-sized-event (name &rest specs)
  (let ((ev (make-event-def name specs)))
    `(defconstant ,(intern (format nil "~a-BYTES" name)) ,(event-size ev))))

(def-sized-event getppid-seen [:pid :u32] [:kind :u8] [:mark :u8] [:seq :u64] [:size :u16])

;; (setf (getppid-seen-kind e) V (getppid-seen-mark e) V): every :u8 field, found unquoted
(defmacro set-bytes (e v)
  `(progn ,@(mapcar (lambda (f)
                      (if (eq (event-field-type getppid-seen f) :u8)
                          `(store-event-imm ,e getppid-seen ,f ,v)
                          0))
                    (event-fields getppid-seen))))

(defmap events :type :ringbuf :max-entries 4096)
(defmap count :type :array :key u32 :value u64 :max-entries 1)

(defprog seen (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (when-let ((n (map-lookup count 0)))
    (incf (load u64 n 0))
    (with-event (e getppid-seen events)
      (store-event-field e getppid-seen :pid (cast u32 (>> (get-current-pid-tgid) 32)))
      (set-bytes e 7)
      (store-event-field e getppid-seen :seq (load u64 n 0))
      (store-event-imm e getppid-seen :size getppid-seen-bytes)))
  0)
