;;; seg6.lisp — an End.BPF segment routing endpoint (lwt_seg6local) that counts the packets
;;; reaching its segment (progtypes.sh: `ip -6 route ... encap seg6local action End.BPF`).

(defmap runs :type :array :key u32 :value u64 :max-entries 1)

(defprog count-segment (:type :lwt-seg6local) (incf (getmap runs 0)) BPF_OK)
