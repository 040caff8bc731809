;; expect: tests/errors/ntohs-arity.lisp:4:12: error: 'ntohs' takes 1 argument, got 2: (ntohs (load u16 data 12) 0)
(defprog eth-check (:type :xdp)
  (let ((data (ctx data)))
    (if (= (ntohs (load u16 data 12) 0) ETH_P_IP)
        XDP_PASS
        XDP_DROP)))
