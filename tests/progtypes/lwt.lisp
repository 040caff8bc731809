;;; lwt.lisp — lightweight tunnel programs, one for each hook of `ip route ... encap bpf`
;;; (progtypes.sh pins them with kiln load and gives them to ip): each counts the packets of
;;; its route in its slot of `runs`; lwt_xmit also drops every packet of its route
;;; (BPF_DROP), so that a sender sees the program's verdict (EPERM).

(defmap runs :type :array :key u32 :value u64 :max-entries 3)

(defprog count-in (:type :lwt-in) (incf (getmap runs 0)) BPF_OK)
(defprog count-out (:type :lwt-out) (incf (getmap runs 1)) BPF_OK)
(defprog drop-discard (:type :lwt-xmit)
  (incf (getmap runs 2))
  BPF_DROP)
