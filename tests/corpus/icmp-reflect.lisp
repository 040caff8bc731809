;; icmp-reflect — answer ICMP echo requests from XDP: rewrite the request into a reply in
;; place and send it back out with XDP_TX.
;; Proves: direct packet writes in XDP (store u8/u16/u32) after bounds checks; swapping
;; MAC and IP addresses through let-bound temporaries; an incremental ICMP checksum update
;; (RFC 1624) and a full IPv4 header checksum recomputed by a dotimes over the 10 header
;; words with a variable load offset; a defun folding a 32-bit sum into 16 bits; the
;; harness compares the reply byte for byte.
(defmap results :type :array :key u32 :value u64 :max-entries 4)

(defun csum-fold (sum)
  (let* ((s (+ (logand sum #xffff) (>> sum 16)))
         (s (+ (logand s #xffff) (>> s 16))))
    s))

(defprog icmp-reflect (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 42) data-end)
      (return XDP_PASS))
    (let ((ip (+ data 14)))
      (unless (and (= (load u16 data 12) (htons #x0800))
                   (= (load u8 ip 0) #x45)
                   (= (load u8 ip 9) 1)
                   (= (load u8 ip 20) 8))
        (return XDP_PASS))
      (let ((icmp (+ ip 20)))
        ;; MACs
        (let ((d0 (load u32 data 0))
              (d1 (load u16 data 4)))
          (store u32 data 0 (load u32 data 6))
          (store u16 data 4 (load u16 data 10))
          (store u32 data 6 d0)
          (store u16 data 10 d1))
        ;; addresses
        (let ((src (load u32 ip 12)))
          (store u32 ip 12 (load u32 ip 16))
          (store u32 ip 16 src))
        ;; echo request (8) -> echo reply (0), checksum adjusted for the changed word
        (let ((old-word (load u16 icmp 0))
              (old-sum (load u16 icmp 2)))
          (store u8 icmp 0 0)
          (let ((new-word (load u16 icmp 0)))
            (store u16 icmp 2
                   (logand (lognot (csum-fold (+ (logand (lognot old-sum) #xffff)
                                                 (logand (lognot old-word) #xffff)
                                                 new-word)))
                           #xffff))))
        ;; a fresh TTL and a header checksum computed from scratch
        (store u8 ip 8 64)
        (store u16 ip 10 0)
        (let ((sum 0))
          (dotimes (i 10)
            (incf sum (load u16 ip (* i 2))))
          (store u16 ip 10 (logand (lognot (csum-fold sum)) #xffff))
          (incf (getmap results 0))
          (incf (getmap results 1) sum)
          XDP_TX)))))
