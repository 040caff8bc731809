;; arp-reply — an XDP ARP responder: turn a who-has for our address into an is-at reply in
;; place and bounce it with XDP_TX; everything else passes.
;; Proves: a realistic rewrite with copies between packet offsets through let-bound values,
;; constants in network byte order written with htons/htonl, a defconstant address compared
;; with a raw packet word, a MAC built from two stores, and output packets compared byte for
;; byte (the default ARP request asks for 10.0.0.2, which is ours; the first input asks for
;; another address, the second is a reply and is left alone).
;; twin-args: --input ffffffffffff020000000001080600010800060400010200000000010a0000010000000000000a000009
;; twin-args: --input 0200000000aa020000000001080600010800060400020200000000010a0000010200000000aa0a000002
(defconstant my-ip #x0a000002)
(defconstant mac-hi #x02000000)     ; 02:00:00:00
(defconstant mac-lo #x00aa)         ; 00:aa
(defmap results :type :array :key u32 :value u64 :max-entries 4)

(defprog arp-reply (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 42) data-end)
      (return XDP_PASS))
    (unless (and (= (load u16 data 12) (htons #x0806))
                 (= (load u16 data 14) (htons 1))
                 (= (load u16 data 16) (htons #x0800))
                 (= (load u16 data 20) (htons 1)))
      (incf (getmap results 0))
      (return XDP_PASS))
    (unless (= (load u32 data 38) (htonl my-ip))
      (incf (getmap results 1))
      (return XDP_PASS))
    (let ((sha-hi (load u32 data 22))
          (sha-lo (load u16 data 26))
          (spa (load u32 data 28)))
      ;; Ethernet: back to the asker, from us
      (store u32 data 0 sha-hi)
      (store u16 data 4 sha-lo)
      (store u32 data 6 (htonl mac-hi))
      (store u16 data 10 (htons mac-lo))
      ;; ARP: is-at, our MAC and address as sender, the asker as target
      (store u16 data 20 (htons 2))
      (store u32 data 22 (htonl mac-hi))
      (store u16 data 26 (htons mac-lo))
      (store u32 data 28 (htonl my-ip))
      (store u32 data 32 sha-hi)
      (store u16 data 36 sha-lo)
      (store u32 data 38 spa)
      (incf (getmap results 2))
      (incf (getmap results 3) (ntohl spa))
      XDP_TX)))
