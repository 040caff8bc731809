;; wh-packet — Whistler's packet library and surface forms in one XDP program.
;; Proves: with-tcp (bounds, ethertype and protocol guards; other packets fall through to the
;; rest of the program), parse-udp in a when-let pipeline, eth-type ipv4-protocol ipv4-ttl
;; tcp-dst-port tcp-flags udp-dst-port udp-length and the +constants+, case with single
;; values, value lists and t, a u8-typed variable that wraps, an i8 from (declare (type ...))
;; that sign-extends, memset and memcpy on a make-S buffer with an indexed array field, log2,
;; (ash x -n), atomic-add with an offset and a u32 type, and incf-map.
;; twin-args: --input 0000000000000000000000000800450000280000000040060000c0a80001c0a800020400270f000000000000000050120000000000000000
(in-package #:whistler)
(defstruct scratch (a u64) (b (array u8 12)) (c u32))
(defmap results :type :array :key-size 4 :value-size 8 :max-entries 16)
(defmap halves :type :array :key-size 4 :value-size 8 :max-entries 1)

(defprog wh-packet (:type :xdp :section "xdp" :license "GPL")
  (incf-map results 0)
  (with-tcp (data data-end tcp)
    (incf (getmap results 1) (tcp-dst-port tcp))
    (when (= (logand (tcp-flags tcp) #x12) +tcp-syn+)
      (incf (getmap results 2)))
    (when (= (tcp-dst-port tcp) 9999)
      (return XDP_DROP)))
  (when-let ((udp (parse-udp (xdp-data) (xdp-data-end))))
    (incf (getmap results 3) (+ (udp-dst-port udp) (udp-length udp))))
  (let* ((data (xdp-data)) (data-end (xdp-data-end)))
    (when (<= (+ data 34) data-end)
      (let ((ttl u8 (ipv4-ttl (+ data +eth-hdr-len+)))
            (proto (ipv4-protocol (+ data +eth-hdr-len+))))
        (declare (type i8 proto))
        (incf ttl 250)                         ; wraps at 256
        (incf (getmap results 4) ttl)
        (incf (getmap results 5) (+ proto 200)) ; proto as i8: 6, 17, 1
        (incf (getmap results 6)
              (case (eth-type data)
                (#x0800 1)
                ((#x86dd #x0806) 2)
                (t 3)))
        (let ((s (make-scratch)))
          (memset s 0 #xab 8)
          (memset s 8 (+ proto 1) 7)
          (memcpy s 16 data 6 6)
          (setf (scratch-b s 11) 5)
          (incf (getmap results 7) (+ (scratch-a s) (scratch-b s 3) (scratch-b s 11) (scratch-c s)))
          (incf (getmap results 8) (log2 (+ (scratch-a s) (load u16 data 12))))
          (incf (getmap results 9) (ash (scratch-a s) -60))
          (when-let ((h (map-lookup halves 0)))
            (atomic-add h 4 (ipv4-ttl (+ data +eth-hdr-len+)) u32))))))
  XDP_PASS)
