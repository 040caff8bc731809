;; big-conntrack — (bench) a TCP connection tracker keyed by a struct: the 5-tuple put in a
;; canonical order (the lower address and port first) so both directions share one entry,
;; a state machine (SYN sent, SYN-ACK seen, established, closing; RST forgets the
;; connection), per-direction packet and byte counts in an array field, and a strict
;; verdict: a packet that opens nothing and belongs to no connection is dropped.
;; Proves: struct keys with the fields chosen by a comparison, array fields indexed by a
;; computed direction, a state machine of nested conds over a struct value, map deletes.
;; twin-args: --input 020000000002020000000001080045000028123440004006149a0a0000010a0000029c4001bb00000001000000005002fffffde30000
;; twin-args: --input 020000000002020000000001080045000028123440004006149a0a0000020a00000101bb9c4000000001000000005012fffffdd30000
;; twin-args: --input 02000000000202000000000108004500002c12344000400614960a0000010a0000029c4001bb00000001000000005010ffff250f000064617461
;; twin-args: --input 020000000002020000000001080045000028123440004006149a0a0000020a00000101bb9c4000000001000000005011fffffdd40000
;; twin-args: --input 0200000000020200000000010800450000281234400040065cedc0a801050a00000215b3001600000001000000005010ffffce5b0000
(defconstant st-syn-sent 1)
(defconstant st-syn-recv 2)
(defconstant st-established 3)
(defconstant st-closing 4)
(defstruct conn-key (lo-addr u32) (hi-addr u32) (lo-port u16) (hi-port u16) (proto u32))
(defstruct conn (state u32) (flags u32) (packets (array u64 2)) (bytes (array u64 2)))
(defmap conns :type :hash :key conn-key :value conn :max-entries 512)
;; results: 0 new, 1 established, 2 closed by RST, 3 dropped (no connection), 4 not TCP,
;; 5 state changes
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defprog big-conntrack (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 54) data-end)
      (return XDP_PASS))
    (unless (and (= (load u16 data 12) (htons #x0800))
                 (= (load u8 data 14) #x45)
                 (= (load u8 data 23) 6))
      (incf (getmap results 4))
      (return XDP_PASS))
    (let ((saddr (ntohl (load u32 data 26)))
          (daddr (ntohl (load u32 data 30)))
          (sport (ntohs (load u16 data 34)))
          (dport (ntohs (load u16 data 36)))
          (flags (load u8 data 47))
          (len (- data-end data))
          (k (make-conn-key))
          (dir 0))
      (if (or (< saddr daddr) (and (= saddr daddr) (< sport dport)))
          (setf (conn-key-lo-addr k) saddr (conn-key-hi-addr k) daddr
                (conn-key-lo-port k) sport (conn-key-hi-port k) dport)
          (setf (conn-key-lo-addr k) daddr (conn-key-hi-addr k) saddr
                (conn-key-lo-port k) dport (conn-key-hi-port k) sport
                dir 1))
      (setf (conn-key-proto k) 6)
      (let ((c (getmap conns k)))
        (when (= c 0)
          (unless (= (logand flags #x12) #x02)
            (incf (getmap results 3))
            (return XDP_DROP))
          (let ((n (make-conn)))
            (setf (conn-state n) st-syn-sent)
            (map-update conns k n BPF_NOEXIST))
          (incf (getmap results 0))
          (setf c (getmap conns k))
          (when (= c 0)
            (return XDP_PASS)))
        (when (/= (logand flags #x04) 0)
          (remmap conns k)
          (incf (getmap results 2))
          (return XDP_PASS))
        (incf (conn-packets c dir))
        (incf (conn-bytes c dir) len)
        (setf (conn-flags c) (logior (conn-flags c) flags))
        (let ((old (conn-state c))
              (new (conn-state c)))
          (cond
            ((/= (logand flags #x01) 0) (setf new st-closing))
            ((and (= old st-syn-sent) (= (logand flags #x12) #x12) (= dir 1))
             (setf new st-syn-recv))
            ((and (= old st-syn-recv) (= (logand flags #x10) #x10) (= dir 0))
             (setf new st-established)
             (incf (getmap results 1))))
          (when (/= new old)
            (setf (conn-state c) new)
            (incf (getmap results 5))))
        XDP_PASS))))
