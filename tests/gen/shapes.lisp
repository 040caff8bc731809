;; shapes — the object `kiln gen` and tests/suites/gen.sh generate code for: nested structs,
;; arrays of integers and of structs, signed fields, an :ipv4 field, an event written to a
;; ring buffer, and maps keyed and valued by structs. Each getpid() of a process adds one to
;; its entry in by-pid (calls, and a signed delta of -1 per call) and sends a hit event.
(defstruct inner (lo i16) (hi u8) (tags (array u8 3)))
(defstruct stats (calls u64) (delta i32) (in inner) (hist (array u32 4)) (pair (array inner 2)))
(defstruct pid-key (pid u32) (kind u8))

(defevent hit
  [:pid :u32] [:addr :ipv4] [:delta :i32] [:small :i8] [:comm :char 16])

(defmap by-pid :type :hash :key pid-key :value stats :max-entries 1024)
(defmap hits :type :ringbuf :max-entries 4096)
(defmap total :type :array :key u32 :value u64 :max-entries 1)

(defprog on-getpid (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getpid")
  (let ((k (make-pid-key))
        (pid (cast u32 (>> (get-current-pid-tgid) 32))))
    (setf (pid-key-pid k) pid
          (pid-key-kind k) 1)
    (incf (getmap total 0))
    (if-let ((s (map-lookup by-pid k)))
      (progn
        (incf (stats-calls s))
        (setf (stats-delta s) (- (stats-delta s) 1)))
      (let ((s (make-stats)))
        (setf (stats-calls s) 1
              (stats-delta s) -1)
        (map-update-ptr by-pid k s BPF_ANY)))
    (with-event (e hit hits)
      (setf (hit-pid e) pid
            (hit-addr e) #x0100007f
            (hit-delta e) -1
            (hit-small e) -2)))
  0)
