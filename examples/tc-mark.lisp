;;; tc-mark.lisp — a tc classifier that marks UDP packets and counts bytes per protocol.
;;; Attach with `tc filter add dev IF ingress bpf da obj tc-mark.o sec tc`.

(defmap bytes :type :hash :key u32 :value u64 :max-entries 64)

(defprog tc-mark (:type :tc)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (and (<= (+ data 34) data-end)
               (= (ctx protocol) (htons ETH_P_IP)))
      (let ((proto (load u8 data 23)))
        (incf (getmap bytes proto) (ctx len))
        (when (= proto IPPROTO_UDP)
          (setf (ctx mark) #x2a))))
    TC_ACT_OK))
