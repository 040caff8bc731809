;; conn-events — clj-ebpf style event records: a defevent written to a ring buffer with
;; with-event, and the same layout kept in an array map so its bytes can be compared.
;; Proves: defevent field layout in order with no implicit padding (explicit :padding),
;; event-size 44 and event-field-offset of :pid 8 as in clj-ebpf's ConnectionEvent,
;; event-field-size, a :value-size given by (event-size ...), accessors (E-f p) as setf
;; places on a map value and on a ring-buffer record, with-event reserving and submitting
;; (the ring buffer's contents are not compared, the program must still load and run),
;; (ctx ingress-ifindex) of an XDP program, and a :ringbuf whose size is a constant expression.
(defevent conn-event
  [:timestamp :u64]
  [:pid :u32]
  [:saddr :u32]
  [:daddr :u32]
  [:sport :u16]
  [:dport :u16]
  [:protocol :u8]
  [:direction :u8]
  [:padding :u8 2]
  [:comm :char 16])

(defmap events :type :ringbuf :max-entries (* 4 4096))
(defmap last-event :type :array :key u32 :value-size (event-size conn-event) :max-entries 1)
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defprog conn-events (:type :xdp)
  (setf (getmap results 0) (event-size conn-event)
        (getmap results 1) (event-field-offset conn-event :pid)
        (getmap results 2) (event-field-size conn-event :comm)
        (getmap results 3) (event-field-offset conn-event :dport)
        (getmap results 4) (event-field-offset conn-event :comm))
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 38) data-end)
      (return XDP_PASS))
    (unless (= (load u16 data 12) (htons #x0800))
      (return XDP_PASS))
    (let ((ip (+ data 14)))
      (when-let ((e (map-lookup last-event 0)))
        (setf (conn-event-timestamp e) (+ (conn-event-timestamp e) 1)
              (conn-event-pid e) (ctx ingress-ifindex)
              (conn-event-saddr e) (load u32 ip 12)
              (conn-event-daddr e) (load u32 ip 16)
              (conn-event-sport e) (ntohs (load u16 ip 20))
              (conn-event-dport e) (ntohs (load u16 ip 22))
              (conn-event-protocol e) (load u8 ip 9)
              (conn-event-direction e) 1)
        (incf (getmap results 5) (+ (conn-event-sport e) (conn-event-dport e))))
      (with-event (e conn-event events)
        (setf (conn-event-pid e) 7
              (conn-event-saddr e) (load u32 ip 12)
              (conn-event-protocol e) (load u8 ip 9))
        (incf (getmap results 6)))
      XDP_PASS)))
