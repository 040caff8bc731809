;;; flowdis.lisp — a flow dissector for the network namespace it is attached to (progtypes.sh:
;;; kiln run --netns): it counts the packets it sees, and the IPv4 ones by the protocol the
;;; kernel put in its flow keys, then leaves the dissecting to the kernel's own code.

(defmap runs :type :array :key u32 :value u64 :max-entries 2)

(defprog count-flows (:type :flow-dissector)
  (incf (getmap runs 0))
  (let ((keys (ctx flow-keys)))
    (when (= (load u16 keys 10) (htons ETH_P_IP))    ; n_proto
      (incf (getmap runs 1))))
  BPF_FLOW_DISSECTOR_CONTINUE)
