;; ev-drops — with-event on a ring buffer that fills up: records of 1000 bytes in a one-page
;; ring buffer nobody reads, so after a few runs every reserve fails and kiln's events-drops
;; counter (which the C twin keeps by hand as events_drops) counts them; (discard-event)
;; throws away the records of packets that are not TCP, so those never take space.
;; Proves: the drop counter kiln adds is incremented once per failed reserve, discard-event
;; leaves the with-event (the code after it in the body does not run), the body's results.
;; twin-args: --repeat 12
;; twin-args: --input 02000000000202000000000108004500001c12344000401100000a0102030a010204
(defevent big [:proto :u8] [:padding :u8 3] [:n :u32] [:fill :u8 992])

(defmap events :type :ringbuf :max-entries 4096)
(defmap results :type :array :key u32 :value u64 :max-entries 4)

(defprog ev-drops (:type :xdp)
  (with-packet (data data-end :min-len 34)
    (let ((proto (load u8 data 23)))
      (with-event (e big events)
        (incf (getmap results 0))                  ; reserved
        (when (/= proto 6)
          (incf (getmap results 1))                ; discarded
          (discard-event))
        (setf (big-proto e) proto
              (big-n e) (getmap results 0))
        (incf (getmap results 2)))                 ; submitted
      (incf (getmap results 3))))                  ; every run
  XDP_PASS)
