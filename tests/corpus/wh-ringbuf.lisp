;; wh-ringbuf — ring buffer forms and tail calls from XDP.
;; Proves: with-ringbuf reserves, runs its body and submits (with and without :flags), and
;; skips the body when the ring is full — records are never consumed here, so the 4096-byte
;; ring fills after a few runs and the counts of bodies run, kept in an array map, say
;; exactly when; a body that discards its record with ringbuf-discard before a (return ...);
;; ringbuf-output's return value (0, then -EAGAIN once full); ringbuf-query of the bytes
;; waiting in the ring, which proves both sides reserved the same sizes; tail-call into an
;; empty :prog-array slot, at a constant and at a computed (also out-of-range) index, falls
;; through to the next form. The ring's contents are not compared, only these counts.
;; Crafted inputs as in wh-pkt-xdp.
;; twin-args: --repeat 2
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500002d1234400001060000ac1000010a00000204d201bbdeadbeef000000005010ffff0000000068656c6c6f
;; twin-args: --input 0200000000020200000000010800450000140000
;; twin-args: --input 02000000000202000000000108004500002312344000801100000a010203c0a807099c400007000f000078797a7a793132
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --input 020000000002020000000001080045000028123440003f060000c0a807090a0102030050c738ffffffff000000005011ffff00000000
(defmap events :type :ringbuf :max-entries 4096)
(defmap jt :type :prog-array :key-size 4 :value-size 4 :max-entries 8)
(defmap results :type :array :key u32 :value u64 :max-entries 12)

(defprog rb-ring (:type :xdp)
  (let* ((data (xdp-data))
         (data-end (xdp-data-end))
         (len (- data-end data))
         (verdict XDP_PASS))
    (incf (getmap results 0))
    (if (> len 60)
        (with-ringbuf (e events 400)
          (store u64 e 0 len)
          (incf (getmap results 1)))
        (with-ringbuf (e events 40 :flags 0)
          (memset e 0 0 40)
          (incf (getmap results 2))))
    (when (<= (+ data 54) data-end)
      (with-ringbuf (e events 24)
        (when (= (ntohs (load u16 data 36)) 9999)
          (ringbuf-discard e 0)
          (incf (getmap results 3))
          (return XDP_DROP))
        (store u64 e 0 (load u64 data 26))
        (setf verdict XDP_TX)))
    (let ((b (struct-alloc 16)))
      (store u64 b 8 len)
      (incf (getmap results 4) (- 0 (ringbuf-output events b 16 0))))
    (setf (getmap results 5) (ringbuf-query events BPF_RB_AVAIL_DATA))
    (tail-call jt 0)
    (incf (getmap results 6))
    (tail-call jt (logand len 15))
    (incf (getmap results 7))
    verdict))
