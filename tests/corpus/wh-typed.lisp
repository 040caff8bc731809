;; wh-typed — typed variables: (let ((x TYPE init)) ...), (x TYPE), (declare (type ...)).
;; Proves: a typed variable holds its value truncated to the type when bound and after every
;; setf/incf/decf — a u8 that wraps at 256 (also across a dotimes loop), a u16 and a u32 that
;; wrap, a u8 decremented below 0; signed types sign-extend: an i8 from (declare (type i8 x))
;; over a packet byte, an i16 and an i32 over packet words, an i8 decremented below -128
;; (wraps to positive); (x u16) with no init is 0; declare naming two variables; let* whose
;; later init sees the earlier variable already truncated; when-let and if-let with
;; (var TYPE init) test the truncated value (a u8 of ttl*4 is 0 for ttl 64: body skipped).
;; Crafted inputs as in wh-pkt-xdp (ttls 200, 1, 128, 255, 63; seqs 01020304, deadbeef,
;; ffffffff), plus a TCP SYN with seq 00010000 and ttl 192.
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500002d1234400001060000ac1000010a00000204d201bbdeadbeef000000005010ffff0000000068656c6c6f
;; twin-args: --input 0200000000020200000000010800450000140000
;; twin-args: --input 02000000000202000000000108004500002312344000801100000a010203c0a807099c400007000f000078797a7a793132
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --input 020000000002020000000001080045000028123440003f060000c0a807090a0102030050c738ffffffff000000005011ffff00000000
;; twin-args: --input 02000000000202000000000108004500002812344000c00600000a010203c0a807090007000800010000000000005002ffff00000000
(defmap results :type :array :key u32 :value u64 :max-entries 24)

(defprog ty-vars (:type :xdp)
  (let ((data (xdp-data))
        (data-end (xdp-data-end)))
    (when (> (+ data 54) data-end)
      (return XDP_PASS))
    (let ((ttl u8 (load u8 data 22))
          (len u16 (+ (ntohs (load u16 data 16)) #xffc0))
          (seq u32 (ntohl (load u32 data 38)))
          (et i16 (load u16 data 12))
          (n (load u8 data 47))
          (st (load u8 data 22)))
      (declare (type i8 st) (type u8 n))
      (incf ttl 250)
      (incf (getmap results 0) ttl)
      (dotimes (i 3)
        (incf ttl 100))
      (incf (getmap results 1) ttl)
      (decf ttl (+ ttl 1))
      (incf (getmap results 2) ttl)
      (incf (getmap results 3) len)
      (setf len (* len 3))
      (incf (getmap results 4) len)
      (incf seq #xfffffff0)
      (incf (getmap results 5) seq)
      (incf (getmap results 6) (+ et 100000))
      (incf (getmap results 7) (+ st 1000))
      (when (s< st 0)
        (incf (getmap results 8)))
      (incf st 100)
      (incf (getmap results 9) (+ st 1000))
      (decf st 200)
      (incf (getmap results 10) (+ st 1000))
      (setf n (+ n 255))
      (incf (getmap results 11) n)
      (let ((s i32 (ntohl (load u32 data 38)))
            (z u16))
        (incf (getmap results 12) s)
        (incf (getmap results 13) (+ z 1))
        (setf z (+ 70000 s))
        (incf (getmap results 14) z))
      (let ((a (load u8 data 22))
            (b (load u8 data 23)))
        (declare (type u8 a b))
        (setf a (+ a 100)
              b (- b 7))
        (incf (getmap results 15) (+ (* a 1000) b)))
      (let* ((a u8 (+ (load u8 data 22) 200))
             (b (* a 2)))
        (incf (getmap results 16) b))
      (when-let ((z u8 (* (load u8 data 22) 4)))
        (incf (getmap results 17) z))
      (incf (getmap results 18)
            (if-let (lo u16 (- (ntohl (load u32 data 38)) #x10000))
              lo
              7777))
      (+ ttl 10))))
