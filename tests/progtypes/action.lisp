;;; action.lisp — a tc action (sched_act) that drops IPv4 UDP and lets the rest go on
;;; (progtypes.sh runs it with kiln test-run on sample packets).

(defmap runs :type :array :key u32 :value u64 :max-entries 1)

(defprog drop-udp (:type :sched-act)
  (incf (getmap runs 0))
  (let ((data (ctx data)) (end (ctx data-end)))
    (if (and (<= (+ data 34) end)
             (= (ctx protocol) (htons ETH_P_IP))
             (= (load u8 data 23) IPPROTO_UDP))
        TC_ACT_SHOT
        TC_ACT_OK)))
