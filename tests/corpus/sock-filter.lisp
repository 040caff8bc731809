;; sock-filter — a :socket-filter that keeps TCP, truncates UDP and drops the rest.
;; Proves: a socket filter's return value as the number of bytes to keep; (ctx len) and
;; (ctx protocol) of the __sk_buff; reading packet bytes with the skb-load-bytes helper into
;; a stack buffer (socket filters have no direct packet access; their data starts at the
;; network header) and its return value on short packets; a per-protocol hash counter.
(defmap results :type :array :key u32 :value u64 :max-entries 4)
(defmap by-proto :type :hash :key u32 :value u64 :max-entries 32)

(defprog sock-filter (:type :socket-filter)
  (let ((buf (stack-buffer 20))
        (len (ctx len)))
    (incf (getmap results 0) len)
    (if (= (ntohs (ctx protocol)) #x0800)
        (let ((rc (skb-load-bytes ctx 0 buf 20)))
          (incf (getmap results 1) rc)
          (if (= rc 0)
              (let ((proto (load u8 buf 9)))
                (incf (getmap by-proto proto))
                (incf (getmap results 2) (ntohs (load u16 buf 2)))
                (cond ((= proto 6) len)
                      ((= proto 17) 64)
                      (t 0)))
              0))
        (progn
          (incf (getmap results 3))
          0))))
