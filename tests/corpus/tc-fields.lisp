;; tc-fields — a :tc classifier reading and writing the __sk_buff context.
;; Proves: (ctx len), (ctx protocol) (network order, so ntohs), (ctx pkt-type), (ctx ifindex),
;; (ctx ingress-ifindex), setf of the writable (ctx mark) and (ctx priority) — the harness
;; compares the __sk_buff after each run — reading mark back after writing it, direct packet
;; access through (ctx data)/(ctx data-end) in a tc program, and TC_ACT_OK/TC_ACT_SHOT.
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defprog tc-fields (:type :tc)
  (let ((len (ctx len))
        (proto (ntohs (ctx protocol))))
    (incf (getmap results 0) len)
    (incf (getmap results 1) proto)
    (incf (getmap results 2) (ctx pkt-type))
    (incf (getmap results 3) (+ (ctx ifindex) (* (ctx ingress-ifindex) 1000)))
    (setf (ctx mark) (+ (* len 3) proto))
    (setf (ctx priority) (logand len 7))
    (incf (getmap results 4) (ctx mark))
    (let ((data (ctx data))
          (data-end (ctx data-end)))
      (when (> (+ data 34) data-end)
        (return TC_ACT_OK))
      (incf (getmap results 5) (load u8 data 22))
      (if (= (load u8 data 23) 17)
          TC_ACT_SHOT
          TC_ACT_OK))))
