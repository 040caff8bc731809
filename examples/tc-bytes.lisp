;;; tc-bytes.lisp — bytes and packets leaving an interface, per IP protocol, counted on tc
;;; egress. `kiln run examples/tc-bytes.lisp --iface eth0 --egress` (counts print at Ctrl-C), or
;;; read them live with `kiln map dump name:egress_bytes`.

(defstruct traffic (packets u64) (bytes u64))

(defmap egress-bytes :type :percpu-hash :key u32 :value traffic :max-entries 256)

(defprog tc-bytes (:type :tc)          ; "tc": bpftool and libbpf 1.1 know no "tc/egress"
  (let ((proto 0))                                   ; 0: not IPv4
    (when (= (ctx protocol) (htons ETH_P_IP))
      (let ((data (ctx data)) (data-end (ctx data-end)))
        (when (<= (+ data 24) data-end)
          (setf proto (load u8 data 23)))))
    (if-let (tr (getmap egress-bytes proto))
      (progn
        (incf (traffic-packets tr))
        (incf (traffic-bytes tr) (ctx len)))
      (let ((nv (make-traffic)))
        (setf (traffic-packets nv) 1
              (traffic-bytes nv) (ctx len))
        (map-update-ptr egress-bytes (stack-addr proto) nv BPF_NOEXIST))))
  TC_ACT_OK)
