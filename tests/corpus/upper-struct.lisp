;; upper-struct — wh-struct.lisp in upper case: DEFSTRUCT, DEFUNION, MAKE-HIST, the accessors
;; (HIST-SLOTS H 0), (HIST-SLOTS-PTR H), SETF and INCF of them, SIZEOF, DOTIMES, #X numbers.
;; Proves: defstruct and its accessors, written and used in upper case, compile and run as
;; the lower-case original does; the maps and the program the twin compares by name are
;; defined in lower case and used in upper case.
;; The original comment:
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
(DEFSTRUCT HIST
  (COUNT U32)
  (SLOTS (ARRAY U16 8))
  (TAG U8)
  (BYTES (ARRAY U8 5))
  (TOTAL U64))

(DEFSTRUCT V4 (KIND U8) (TTL U8) (LEN U16) (SRC U32) (DST U32))
(DEFSTRUCT V6 (KIND U8) (HOP U8) (PLEN U16) (WORDS (ARRAY U32 4)))
(DEFUNION ADDR V4 V6)

(DEFMAP hists :TYPE :HASH :KEY U32 :VALUE-SIZE 40 :MAX-ENTRIES 32)
(DEFMAP addrs :TYPE :HASH :KEY U32 :VALUE-SIZE 20 :MAX-ENTRIES 32)
(DEFMAP results :TYPE :ARRAY :KEY U32 :VALUE U64 :MAX-ENTRIES 12)

(DEFPROG upper-struct (:TYPE :XDP)
  (LET ((DATA (XDP-DATA))
        (DATA-END (XDP-DATA-END)))
    (WHEN (> (+ DATA 54) DATA-END)
      (RETURN XDP_PASS))
    (LET ((H (MAKE-HIST))
          (TTL (LOAD U8 DATA 22))
          (LEN (- DATA-END DATA))
          (DPORT (NTOHS (LOAD U16 DATA 36))))
      (SETF (HIST-COUNT H) LEN
            (HIST-TAG H) (LOAD U8 DATA 47))
      (SETF (HIST-SLOTS H 0) DPORT
            (HIST-SLOTS H 7) (+ TTL 1))
      (SETF (HIST-SLOTS H (LOGAND TTL 7)) (+ (HIST-SLOTS H (LOGAND TTL 7)) 1000))
      (INCF (HIST-SLOTS H (LOGAND DPORT 3)) 7)
      (STORE U16 (HIST-SLOTS-PTR H) 4 #X4242)
      (XDP-LOAD-BYTES (CTX-PTR) 6 (HIST-BYTES-PTR H) 5)
      (INCF (HIST-BYTES H 4) 3)
      (DOTIMES (I 8)
        (INCF (HIST-TOTAL H) (* (HIST-SLOTS H I) (+ I 1))))
      (SETMAP HISTS LEN H)
      (SETF (GETMAP RESULTS 0) (- (HIST-TOTAL-PTR H) H)
            (GETMAP RESULTS 1) (- (HIST-BYTES-PTR H) H)
            (GETMAP RESULTS 2) (SIZEOF HIST)
            (GETMAP RESULTS 3) (SIZEOF ADDR))
      ;; a fresh struct in a loop is zeroed each time round
      (DOTIMES (I 3)
        (LET ((T2 (MAKE-HIST)))
          (INCF (HIST-TAG T2) (+ I 1))
          (INCF (HIST-SLOTS T2 I) TTL)
          (INCF (GETMAP RESULTS 4) (+ (HIST-TAG T2) (HIST-COUNT T2) (HIST-SLOTS T2 I)
                                      (HIST-SLOTS T2 (- 2 I))))))
      ;; the union: write as v4, read as v6
      (LET ((U (MAKE-ADDR))
            (S (STRUCT-ALLOC (SIZEOF V6))))
        (SETF (V4-KIND U) 4
              (V4-TTL U) TTL
              (V4-LEN U) (NTOHS (LOAD U16 DATA 16))
              (V4-SRC U) (LOAD U32 DATA 26)
              (V4-DST U) (LOAD U32 DATA 30))
        (SETF (V6-WORDS U 3) (+ (V6-WORDS U 1) 1))
        (INCF (GETMAP RESULTS 5) (+ (V6-HOP U) (V6-PLEN U) (V6-WORDS U 0)))
        (SETF (V6-KIND S) 6
              (V6-WORDS S (LOGAND DPORT 3)) (V4-DST U))
        (INCF (GETMAP RESULTS 6) (+ (V6-KIND S) (V6-WORDS S 0) (V6-WORDS S 1) (V6-WORDS S 2)
                                    (V6-WORDS S 3)))
        (SETMAP ADDRS LEN U))
      (+ (HIST-SLOTS H 1) (HIST-BYTES H 0)))))
