;; cg-ingress — a :cgroup-skb ingress filter that allows everything but UDP to port 9.
;; Proves: a cgroup-skb program with an explicit :section, direct packet access that starts
;; at the IP header, the IP version from the high nibble (>>), the UDP port behind a
;; variable-length IPv4 header, (ctx len), return values 1 (allow) and 0 (drop), per-version
;; byte counts in a :hash keyed by a computed value.
;; twin-args: --input 0200000000020200000000010800460000280000000040110000c0a80001c0a800020000000004d2000900080000
(defmap results :type :array :key u32 :value u64 :max-entries 16)
(defmap lens :type :hash :key u32 :value u64 :max-entries 16)

(defprog cg-ingress (:type :cgroup-skb :section "cgroup_skb/ingress")
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 20) data-end)
      (incf (getmap results 15))
      (return 1))
    (let* ((ver (>> (load u8 data 0) 4))
           (ihl (* (logand (load u8 data 0) 15) 4))
           (proto (load u8 data 9)))
      (incf (getmap results (logand proto 15)))
      (incf (getmap lens ver) (ctx len))
      (if (and (= ver 4) (= proto 17) (>= ihl 20))
          (let ((udp (+ data ihl)))
            (if (> (+ udp 8) data-end)
                1
                (if (= (ntohs (load u16 udp 2)) 9) 0 1)))
          1))))
