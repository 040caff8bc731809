;; wh-core-ctx — Whistler's core-ctx-load and core-load: context and packet reads whose
;; offsets carry CO-RE field relocations (xdp_md.data, data_end, ingress_ifindex; __sk_buff
;; len, protocol, mark), libbpf relocating them against the kernel's own struct before load.
;; Proves the relocated loads read what plain context loads read: packet bounds checks on
;; the relocated data/data_end pass the verifier, the bytes read through them, the lengths
;; and protocol summed into results, and the verdicts, against clang's plain ctx->field.
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --input 02000000000202000000000188b5010203040506
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defprog cx-xdp (:type :xdp)
  (let ((data (core-ctx-load u32 0 xdp-md data))
        (data-end (core-ctx-load u32 4 xdp-md data-end)))
    (incf (getmap results 0) (- data-end data))
    (incf (getmap results 1) (core-ctx-load u32 12 xdp-md ingress-ifindex))
    (if (> (+ data 34) data-end)
        XDP_DROP
        (progn
          (incf (getmap results 2) (load u8 data 23))
          (if (= (load u8 data 23) 6) XDP_TX XDP_PASS)))))

(defprog cx-tc (:type :tc)
  (let ((len (core-ctx-load u32 0 __sk_buff len))
        (proto (core-ctx-load u32 16 __sk_buff protocol)))
    (incf (getmap results 3) len)
    (incf (getmap results 4) proto)
    (incf (getmap results 5) (core-load u32 (ctx-ptr) 8 __sk_buff mark))
    (logand len 7)))
