;; wh-struct — defstruct and defunion on the stack.
;; Proves: (make-NAME) is a zeroed stack buffer of the struct's size — padding included, and
;; zeroed again on every iteration when it sits in a loop; (struct-alloc N) likewise;
;; NAME-FIELD reads and setf/incf writes; an indexed array field (NAME-FIELD p i) read and
;; written, (setf (NAME-FIELD p i) v), with constant indices and with indices computed from
;; the packet and from a dotimes variable; NAME-FIELD-ptr as the address of a field (its
;; distance from the struct, a store through it, and xdp-load-bytes writing packet bytes
;; into a u8 array field at an odd offset); defunion of two structs sharing offset 0,
;; written through one member and read through the other, and sizeof of structs and union.
;; Every byte of the structs goes to a hash map keyed by packet length.
;; Crafted inputs as in wh-pkt-xdp.
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500002d1234400001060000ac1000010a00000204d201bbdeadbeef000000005010ffff0000000068656c6c6f
;; twin-args: --input 0200000000020200000000010800450000140000
;; twin-args: --input 02000000000202000000000108004500002312344000801100000a010203c0a807099c400007000f000078797a7a793132
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --input 020000000002020000000001080045000028123440003f060000c0a807090a0102030050c738ffffffff000000005011ffff00000000
(defstruct hist
  (count u32)
  (slots (array u16 8))
  (tag u8)
  (bytes (array u8 5))
  (total u64))

(defstruct v4 (kind u8) (ttl u8) (len u16) (src u32) (dst u32))
(defstruct v6 (kind u8) (hop u8) (plen u16) (words (array u32 4)))
(defunion addr v4 v6)

(defmap hists :type :hash :key u32 :value-size 40 :max-entries 32)
(defmap addrs :type :hash :key u32 :value-size 20 :max-entries 32)
(defmap results :type :array :key u32 :value u64 :max-entries 12)

(defprog sx-struct (:type :xdp)
  (let ((data (xdp-data))
        (data-end (xdp-data-end)))
    (when (> (+ data 54) data-end)
      (return XDP_PASS))
    (let ((h (make-hist))
          (ttl (load u8 data 22))
          (len (- data-end data))
          (dport (ntohs (load u16 data 36))))
      (setf (hist-count h) len
            (hist-tag h) (load u8 data 47))
      (setf (hist-slots h 0) dport
            (hist-slots h 7) (+ ttl 1))
      (setf (hist-slots h (logand ttl 7)) (+ (hist-slots h (logand ttl 7)) 1000))
      (incf (hist-slots h (logand dport 3)) 7)
      (store u16 (hist-slots-ptr h) 4 #x4242)
      (xdp-load-bytes (ctx-ptr) 6 (hist-bytes-ptr h) 5)
      (incf (hist-bytes h 4) 3)
      (dotimes (i 8)
        (incf (hist-total h) (* (hist-slots h i) (+ i 1))))
      (setmap hists len h)
      (setf (getmap results 0) (- (hist-total-ptr h) h)
            (getmap results 1) (- (hist-bytes-ptr h) h)
            (getmap results 2) (sizeof hist)
            (getmap results 3) (sizeof addr))
      ;; a fresh struct in a loop is zeroed each time round
      (dotimes (i 3)
        (let ((t2 (make-hist)))
          (incf (hist-tag t2) (+ i 1))
          (incf (hist-slots t2 i) ttl)
          (incf (getmap results 4) (+ (hist-tag t2) (hist-count t2) (hist-slots t2 i)
                                      (hist-slots t2 (- 2 i))))))
      ;; the union: write as v4, read as v6
      (let ((u (make-addr))
            (s (struct-alloc (sizeof v6))))
        (setf (v4-kind u) 4
              (v4-ttl u) ttl
              (v4-len u) (ntohs (load u16 data 16))
              (v4-src u) (load u32 data 26)
              (v4-dst u) (load u32 data 30))
        (setf (v6-words u 3) (+ (v6-words u 1) 1))
        (incf (getmap results 5) (+ (v6-hop u) (v6-plen u) (v6-words u 0)))
        (setf (v6-kind s) 6
              (v6-words s (logand dport 3)) (v4-dst u))
        (incf (getmap results 6) (+ (v6-kind s) (v6-words s 0) (v6-words s 1) (v6-words s 2)
                                    (v6-words s 3)))
        (setmap addrs len u))
      (+ (hist-slots h 1) (hist-bytes h 0)))))
