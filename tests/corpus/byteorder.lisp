;; byteorder — network/host byte order conversions on packet fields.
;; Proves: ntohs/ntohl/htons/htonl on 16/32-bit packet fields; bswap16/32/64; that the
;; 16- and 32-bit forms use only the low 16/32 bits of a wider value and yield a zero-extended
;; result; double conversion is the identity; conversions of constants; and protocol
;; parsing with them (EtherType, IPv4 total length, ports, addresses compared in either order).
(defmap results :type :array :key u32 :value u64 :max-entries 16)

(defprog byteorder (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 38) data-end)
      (return XDP_PASS))
    (let ((w16 (load u16 data 12))
          (w32 (load u32 data 26))
          (w64 (load u64 data 0)))
      (incf (getmap results 0) (ntohs w16))
      (incf (getmap results 1) (ntohl w32))
      (incf (getmap results 2) (htons w16))
      (incf (getmap results 3) (htonl w32))
      (incf (getmap results 4) (bswap16 w64))
      (incf (getmap results 5) (bswap32 w64))
      (incf (getmap results 6) (bswap64 w64))
      (incf (getmap results 7) (ntohs (ntohs w16)))
      (incf (getmap results 8) (htonl #x0a000001))
      (incf (getmap results 9) (ntohl w64))
      (incf (getmap results 10) (ntohs w64))
      (when (= (ntohs w16) #x0800)
        (incf (getmap results 11) (ntohs (load u16 data 16)))
        (incf (getmap results 12) (ntohs (load u16 data 36)))
        (when (= w32 (htonl #x0a000001))
          (incf (getmap results 13)))
        (when (= (ntohl w32) #x0a000001)
          (incf (getmap results 14))))
      (cast u32 (+ (ntohs w16) (bswap32 w32))))))
