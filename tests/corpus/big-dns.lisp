;; big-dns — (bench) a DNS query counter as resolvers' front ends run it: Ethernet, IPv4
;; with options, UDP to or from port 53, the DNS header (responses counted by RCODE,
;; non-QUERY opcodes and multi-question packets counted and passed), then the QNAME walked
;; label by label over at most 48 bytes: a case-folded FNV-1a hash of the name, its length
;; and label count; then the QTYPE after the name. Counts per QTYPE and per name hash;
;; ANY queries (amplification) and names over the budget are dropped.
;; Proves: a name walk whose label boundaries come from the packet (a label-length
;; countdown), case folding by range test, a read at an offset found by the loop,
;; 64-bit multiply hashing that wraps, the counters and verdicts as clang's.
;; twin-args: --input 02000000000202000000000108004500003d123440004011147a0a0000010a0000029c400035002912f412340100000100000000000003777777074578616d706c6503434f4d0000010001
;; twin-args: --input 02000000000202000000000108004500004112344000401114760a0000010a0000029c410035002d49e91234010000010000000000000161016201630164076578616d706c65036f726700001c0001
;; twin-args: --input 02000000000202000000000108004500003d123440004011147a0a0000020a00000100359c400029721312348180000100000000000003777777076578616d706c6503636f6d0000010001
;; twin-args: --input 020000000002020000000001080045000059123440004011145e0a0000010a0000029c42003500452fda123401000001000000000000287878787878787878787878787878787878787878787878787878787878787878787878787878787802696f0000100001
(defconstant max-name 48)
(defconstant fnv-basis #xcbf29ce484222325)
(defconstant fnv-prime #x100000001b3)
(defmap qtypes :type :hash :key u32 :value u64 :max-entries 64)
(defmap names :type :hash :key u64 :value u64 :max-entries 256)
;; results: 0 queries, 1 responses, 2 response errors (RCODE > 0), 3 other opcodes,
;; 4 multi-question, 5 names too long, 6 ANY dropped, 7 name bytes, 8 labels, 9 truncated
(defmap results :type :array :key u32 :value u64 :max-entries 10)

(defprog big-dns (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 34) data-end)
      (return XDP_PASS))
    (unless (and (= (load u16 data 12) (htons #x0800)) (= (load u8 data 23) 17))
      (return XDP_PASS))
    (let* ((uh (+ data 14 (* (logand (load u8 data 14) 15) 4))))
      (when (> (+ uh 20) data-end)
        (return XDP_PASS))
      (let ((sport (ntohs (load u16 uh 0)))
            (dport (ntohs (load u16 uh 2)))
            (flags (ntohs (load u16 uh 10)))
            (qd (ntohs (load u16 uh 12))))
        (when (= sport 53)
          (incf (getmap results 1))
          (when (/= (logand flags 15) 0)
            (incf (getmap results 2)))
          (return XDP_PASS))
        (unless (= dport 53)
          (return XDP_PASS))
        (when (/= (logand flags #x8000) 0)
          (return XDP_PASS))
        (when (/= (logand (>> flags 11) 15) 0)
          (incf (getmap results 3))
          (return XDP_PASS))
        (when (/= qd 1)
          (incf (getmap results 4))
          (return XDP_PASS))
        (incf (getmap results 0))
        (let ((q (+ uh 20))
              (h fnv-basis)
              (left 0)
              (labels 0)
              (len 0)
              (end 0))
          (dotimes (i max-name)
            (when (= end 0)
              (let ((p (+ q i)))
                (if (> (+ p 1) data-end)
                    (setf end 255)
                    (let ((c (load u8 p 0)))
                      (cond
                        ((/= left 0)
                         (when (and (>= c 65) (<= c 90))
                           (setf c (+ c 32)))
                         (setf h (* (logxor h c) fnv-prime)
                               left (- left 1)
                               len (+ len 1)))
                        ((= c 0)
                         (setf end (+ i 1)))
                        (t
                         (setf h (* (logxor h 46) fnv-prime)
                               left (logand c 63)
                               labels (+ labels 1)))))))))
          (cond
            ((= end 255)
             (incf (getmap results 9))
             XDP_DROP)
            ((= end 0)
             (incf (getmap results 5))
             XDP_DROP)
            (t
             (let ((qt (+ q end)))
               (when (> (+ qt 2) data-end)
                 (incf (getmap results 9))
                 (return XDP_DROP))
               (let ((qtype (ntohs (load u16 qt 0))))
                 (incf (getmap qtypes qtype))
                 (incf (getmap names h))
                 (incf (getmap results 7) len)
                 (incf (getmap results 8) labels)
                 (if (= qtype 255)
                     (progn (incf (getmap results 6)) XDP_DROP)
                     XDP_PASS))))))))))
