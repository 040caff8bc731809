;; wh-ctx-tc — the context of a tc program by offset, by name, and as a helper argument.
;; Proves: (ctx TYPE OFFSET) reads of __sk_buff — len at 0, mark at 8 read back after a write,
;; protocol at 16, and narrow reads (ctx u8 0) and (ctx u16 16); data and data-end read by
;; raw offset (ctx u32 76)/(ctx u32 80) are packet pointers the verifier lets the program
;; dereference; (setf (ctx mark) v), (setf (ctx u32 8) v) (mark again, by offset, the later
;; write wins), (setf (ctx priority) v), (setf (ctx u32 48) v) and (ctx-store u32 52 v) (cb[0]
;; and cb[1]) — the harness compares the __sk_buff after each run; (ctx-ptr) handed to
;; skb-load-bytes at offset 0 and at an odd offset with an odd length, to an out-of-range
;; load (its -EFAULT kept), and to skb-load-bytes-relative from the network header.
;; Crafted inputs as in wh-pkt-tc.
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500002d1234400001060000ac1000010a00000204d201bbdeadbeef000000005010ffff0000000068656c6c6f
;; twin-args: --input 02000000000202000000000108004500002312344000801100000a010203c0a807099c400007000f000078797a7a793132
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --input 020000000002020000000001080045000028123440003f060000c0a807090a0102030050c738ffffffff000000005011ffff00000000
;; twin-args: --input 02000000000202000000000188b5010203040506
;; twin-args: --input 02000000000202000000000108004500002812344000090600000a0908070a00000115b3270f0000
(defmap results :type :array :key u32 :value u64 :max-entries 12)

(defprog cx-ctx (:type :tc)
  (let ((len (ctx u32 0))
        (proto (ctx u32 16)))
    (incf (getmap results 0) len)
    (incf (getmap results 1) (+ proto (* 65536 (ctx u16 16))))
    (incf (getmap results 2) (ctx u8 0))
    (setf (ctx mark) (* len 3))
    (incf (getmap results 3) (ctx u32 8))
    (setf (ctx u32 8) (+ (ctx mark) proto))
    (setf (ctx priority) (logand len 15))
    (setf (ctx u32 48) (ntohs proto))
    (ctx-store u32 52 (+ len 1))
    (let ((buf (struct-alloc 16))
          (b2 (struct-alloc 16)))
      (when (= (skb-load-bytes (ctx-ptr) 0 buf 14) 0)
        (incf (getmap results 4) (+ (eth-type buf) (load u32 buf 0))))
      (setf (getmap results 5) (skb-load-bytes (ctx-ptr) 23 b2 11))
      (incf (getmap results 6) (+ (load u64 b2 0) (load u32 b2 8)))
      (setf (getmap results 7) (skb-load-bytes (ctx-ptr) 60 buf 9))
      (when (= (skb-load-bytes-relative (ctx-ptr) 0 b2 12 BPF_HDR_START_NET) 0)
        (incf (getmap results 8) (load u32 b2 8))))
    (let ((d (ctx u32 76))
          (de (ctx u32 80)))
      (when (<= (+ d 34) de)
        (incf (getmap results 9) (load u8 d 23))
        (setf (ctx u32 48) (load u32 d 26))))
    (+ (ctx mark) (ctx priority))))
