;; wh-smaps — maps with struct keys and values, through Whistler's map forms.
;; Proves: a :value-type STRUCT map's getmap is the value's address — fields read and
;; incf'd/setf'd in place through it — or 0 when the key is absent; map-update-ptr with a
;; make-NAME key and value and BPF_NOEXIST, map-lookup-ptr and map-delete-ptr with a struct
;; key; a :key-size 12 map used through getmap, incf and incf-map with a make-NAME key (a key
;; wider than 8 bytes goes by pointer on its own) and with the constant key 0 (12 zero
;; bytes); setmap with BPF_NOEXIST and BPF_ANY, delmap of an absent key and remmap, their
;; return codes (0, -EEXIST, -ENOENT) kept in a map; the verdict read from the struct value.
;; Crafted inputs as in wh-pkt-xdp; the default SYN and the crafted SYN/FIN packets repeat
;; flows, so entries are created, found and updated.
;; twin-args: --repeat 2
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500002d1234400001060000ac1000010a00000204d201bbdeadbeef000000005010ffff0000000068656c6c6f
;; twin-args: --input 0200000000020200000000010800450000140000
;; twin-args: --input 02000000000202000000000108004500002312344000801100000a010203c0a807099c400007000f000078797a7a793132
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --input 020000000002020000000001080045000028123440003f060000c0a807090a0102030050c738ffffffff000000005011ffff00000000
(defstruct tuple (saddr u32) (daddr u32) (sport u16) (dport u16))
(defstruct flowst (pkts u64) (bytes u64) (last-ttl u8) (flags u8))

(defmap flows :type :hash :key-size 12 :value-type flowst :max-entries 64)
(defmap counts :type :hash :key-size 12 :value-size 8 :max-entries 64)
(defmap ports :type :hash :key u32 :value u64 :max-entries 64)
(defmap results :type :array :key u32 :value u64 :max-entries 12)

(defprog sm-maps (:type :xdp)
  (with-packet (data data-end :min-len 54)
    (let ((k (make-tuple))
          (len (- data-end data))
          (ttl (load u8 data 22))
          (proto (load u8 data 23))
          (dport (ntohs (load u16 data 36))))
      (setf (tuple-saddr k) (load u32 data 26)
            (tuple-daddr k) (load u32 data 30)
            (tuple-sport k) (ntohs (load u16 data 34))
            (tuple-dport k) dport)
      (if-let (st (getmap flows k))
        (progn
          (incf (flowst-pkts st))
          (incf (flowst-bytes st) len)
          (setf (flowst-flags st) (logior (flowst-flags st) (load u8 data 47))))
        (let ((nv (make-flowst)))
          (setf (flowst-pkts nv) 1
                (flowst-bytes nv) len
                (flowst-last-ttl nv) ttl)
          (incf (getmap results 0) (+ 10 (map-update-ptr flows k nv BPF_NOEXIST)))))
      (let ((other (make-tuple)))
        (setf (tuple-sport other) 1)
        (when (= (getmap flows other) 0)
          (incf (getmap results 1))))
      (when-let ((p (map-lookup-ptr flows k)))
        (incf (getmap results 2) (+ (flowst-pkts p) (flowst-bytes p) (flowst-last-ttl p)
                                    (flowst-flags p))))
      (incf (getmap counts k) ttl)
      (incf-map counts k)
      (incf (getmap results 3) (getmap counts k))
      (incf-map counts 0 3)
      (setf (getmap results 4) (setmap ports dport len BPF_NOEXIST))
      (incf (getmap results 5) (+ 1 (setmap ports dport (+ len ttl))))
      (setf (getmap results 6) (delmap ports 12345))
      (when (= proto +ip-proto-udp+)
        (incf (getmap results 7) (+ 100 (map-delete-ptr flows k)))
        (remmap counts k))
      (when (= dport 9999)
        (incf (getmap results 8) (+ 1000 (remmap ports dport))))
      (if-let (st (getmap flows k))
        (+ (flowst-pkts st) (* 10 (flowst-last-ttl st)))
        XDP_DROP))))
