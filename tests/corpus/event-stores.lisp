;; event-stores — clj-ebpf's defevent stores (seed 002): store-event-field of computed values,
;; store-event-imm of constants, store-event-fields of several, zero-event-field of an integer
;; and of the 16-byte comm, all into seed 002's ConnectionEvent kept in a map value (packed:
;; pid at 8, comm at 28, 44 bytes), which the harness compares with clang's byte for byte; and
;; event-fields and event-field-type in a macro: every :u8 field set from the event's own
;; description (protocol and direction: padding is an array, whose type is its element's).
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
(defevent ConnectionEvent
  [:timestamp :u64] [:pid :u32] [:saddr :u32] [:daddr :u32] [:sport :u16] [:dport :u16]
  [:protocol :u8] [:direction :u8] [:padding :u8 2] [:comm :char 16])
(defmap events :type :array :key u32 :value ConnectionEvent :max-entries 2)

(defmacro set-u8-fields (p ev v)
  `(progn ,@(mapcar (lambda (f)
                      (if (and (eq (event-field-type ev f) :u8) (= (event-field-size ev f) 1))
                          `(store-event-imm ,p ,ev ,f ,v)
                          0))
                    (event-fields ev))))

(defprog stores (:type :xdp)
  (let ((len (- (ctx data-end) (ctx data))))
    (when-let ((e (map-lookup events 0)))
      (store-event-field e ConnectionEvent :timestamp (* len 1000))
      (store-event-field e ConnectionEvent :pid (+ len 7))
      (store-event-imm e ConnectionEvent :protocol 6)
      (store-event-fields e ConnectionEvent :sport (+ len 1) :dport 443 :direction 1 :saddr #x0a000001))
    (when-let ((e (map-lookup events 1)))
      (store-event-field e ConnectionEvent :daddr len)
      (zero-event-field e ConnectionEvent :daddr)
      (memset e (event-field-offset ConnectionEvent :comm) #x41 16)   ; AAAA... then zeroed
      (zero-event-field e ConnectionEvent :comm)
      (store-event-imm e ConnectionEvent :dport 80)
      (set-u8-fields e ConnectionEvent 171)))
  XDP_PASS)
