;; xdp-count — the first program everyone writes: packets and bytes per EtherType class.
;; Proves: defmap :array with :key/:value types, (ctx data) and (ctx data-end), a packet
;; bounds check with an early (return XDP_PASS), (load u16 ...) + ntohs, let*, cond with a
;; t clause, incf on getmap with and without a delta, pointer difference as a length, and the
;; last body form (an if) as the program's return value.
(defmap pkt-count :type :array :key u32 :value u64 :max-entries 4)
(defmap byte-count :type :array :key u32 :value u64 :max-entries 4)

(defprog xdp-count (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 14) data-end)
      (return XDP_PASS))
    (let* ((proto (ntohs (load u16 data 12)))
           (class (cond ((= proto #x0800) 0)
                        ((= proto #x86dd) 1)
                        ((= proto #x0806) 2)
                        (t 3))))
      (incf (getmap pkt-count class))
      (incf (getmap byte-count class) (- data-end data))
      (if (= class 3) XDP_DROP XDP_PASS))))
