;; queue-stack — maps with values and no keys: a :queue, a :stack and a :bloom-filter.
;; Proves: map-push of a computed value and of a constant into a queue (FIFO) and a stack
;; (LIFO), map-push on a full queue (-E2BIG) and with BPF_EXIST (the oldest element goes),
;; map-peek and map-pop giving the element's address or 0 when empty, map-peek of a bloom
;; filter (1 for a pushed value, 0 for absent ones: BPF_F_ZERO_SEED makes both maps hash
;; alike). The harness compares results and then pops both queues and stacks to the end.
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --input 02000000000202000000000188b5010203040506
;; twin-args: --repeat 3
(defconstant zero-seed #x40)
(defmap q :type :queue :value u32 :max-entries 6)
(defmap st :type :stack :value u64 :max-entries 8)
(defmap bl :type :bloom-filter :value u32 :max-entries 64 :map-flags zero-seed)
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defprog qs (:type :xdp)
  (let ((len (- (ctx data-end) (ctx data))))
    (incf (getmap results 0) (map-push q len))            ; -E2BIG once full
    (map-push st (* len 3))
    (map-push bl len)
    (incf (getmap results 1) (map-peek bl len))
    (incf (getmap results 2) (map-peek bl (+ len 1000)))
    (when-let ((p (map-peek q)))
      (incf (getmap results 3) (load u32 p 0)))
    (when (= (logand (getmap results 7) 1) 1)
      (when-let ((p (map-pop st)))
        (incf (getmap results 4) (load u64 p 0))))
    (when (> len 60)
      (setf (getmap results 5) (map-push q 7 BPF_EXIST)))
    (incf (getmap results 7))
    (if (map-pop st) XDP_PASS XDP_DROP)))
