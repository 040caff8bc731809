;; wh-mem — memset and memcpy with constant and computed bytes, odd offsets and lengths.
;; Proves: (memset P OFF V N) fills exactly N bytes from P+OFF with V's low byte — V constant
;; (#xa5, #x3c, 0, -1) or computed from the packet (and above 255: only its low byte counts),
;; N odd or 0, OFF odd — and leaves the bytes around alone; (memcpy D DOFF S SOFF N) copies
;; packet to stack, stack to stack and stack to packet with odd offsets on either side and
;; odd lengths; memset on a map value and memset/memcpy into the packet itself (the harness
;; compares the output packet); every byte of both 64-byte buffers goes to a hash map keyed
;; by packet length, so each one is compared.
;; Crafted inputs as in wh-pkt-xdp.
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500002d1234400001060000ac1000010a00000204d201bbdeadbeef000000005010ffff0000000068656c6c6f
;; twin-args: --input 0200000000020200000000010800450000140000
;; twin-args: --input 02000000000202000000000108004500002312344000801100000a010203c0a807099c400007000f000078797a7a793132
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --input 020000000002020000000001080045000028123440003f060000c0a807090a0102030050c738ffffffff000000005011ffff00000000
(defmap bufs :type :hash :key-size 4 :value-size 64 :max-entries 32)
(defmap copies :type :hash :key-size 4 :value-size 64 :max-entries 32)
(defmap cells :type :array :key-size 4 :value-size 24 :max-entries 2)

(defprog mm-ops (:type :xdp)
  (let ((data (xdp-data))
        (data-end (xdp-data-end)))
    (when (> (+ data 54) data-end)
      (return XDP_PASS))
    (let ((b (struct-alloc 64))
          (c (struct-alloc 64))
          (v (load u8 data 22))
          (len (- data-end data)))
      (memset b 0 #xa5 64)
      (memset b 1 #x3c 3)
      (memset b 5 v 11)
      (memset b 17 (+ v 257) 13)
      (memset b 33 0 1)
      (memset b 40 -1 7)
      (memset b 63 v 0)
      (memcpy c 3 data 6 13)
      (memcpy c 16 b 1 15)
      (memcpy c 35 data 23 11)
      (memcpy c 48 b 40 16)
      (memcpy b 50 c 3 9)
      (setmap bufs len b)
      (setmap copies len c)
      (when-let ((m (map-lookup cells (logand len 1))))
        (memset m 3 (load u8 data 47) 19))
      ;; the packet itself: MACs from the copy, a filled run at an odd offset
      (memcpy data 0 c 3 6)
      (memcpy data 7 b 16 5)
      (memset data 49 (+ v 1) 5)
      (+ (load u8 c 8) (load u8 b 54)))))
