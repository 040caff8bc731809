;; xdp1 — a twin of Linux's samples/bpf/xdp1_kern.c (issue 14, seed 003): count every packet
;; in a per-CPU array slot by its IP protocol (IPv4's protocol, IPv6's next header, 0 for
;; anything else), through up to two VLAN tags, and drop it.
;; Proves: a `:value long` map, a `u32` key and a `u16` local holding byte-swapped header
;; fields, VLAN and QinQ parsing with bounds checks that stop runts. Its BTF is checked
;; against clang's for the C twin by tests/suites/btftypes.sh (rxcnt's key is TYPEDEF u32 ->
;; TYPEDEF __u32 -> INT unsigned int, its value INT long, as in the seed's listing).
;; Inputs beyond the defaults: IPv4/UDP behind one VLAN tag, IPv4/GRE behind QinQ, a VLAN
;; tag cut short.
;; twin-args: --input 0200000000020200000000018100006408004500002400000000401100000a0000010a00000212340035001000000000000000000000
;; twin-args: --input 02000000000202000000000188a80064810000c808004500001400000000402f00000a0000010a000002
;; twin-args: --input 0200000000020200000000018100
(defmap rxcnt :type :percpu-array :key u32 :value long :max-entries 256)

;; The protocol of the IPv4 header at NH-OFF, the next header of the IPv6 one, 0 if it is
;; cut short. Macros, as clang inlines the C's static functions: the BTF then holds the
;; same types as the seed's listing, and no FUNC besides xdp_prog1.
(defmacro ip4-proto-at (data nh-off data-end)
  `(if (> (+ ,data ,nh-off 20) ,data-end) 0 (load u8 ,data (+ ,nh-off 9))))

(defmacro ip6-proto-at (data nh-off data-end)
  `(if (> (+ ,data ,nh-off 40) ,data-end) 0 (load u8 ,data (+ ,nh-off 6))))

(defprog xdp-prog1 (:type :xdp)
  (let* ((data (ctx data))
         (data-end (ctx data-end))
         (nh-off 14)
         (h-proto u16 0)
         (ipproto u32 0))
    (when (> (+ data nh-off) data-end)
      (return XDP_DROP))
    (setf h-proto (load u16 data 12))
    ;; an 802.1Q or 802.1ad tag, then maybe a second one: 4 bytes each, whose last two
    ;; are the protocol they carry
    (dotimes (i 2)
      (when (or (= h-proto (htons ETH_P_8021Q)) (= h-proto (htons ETH_P_8021AD)))
        (setf nh-off (+ nh-off 4))
        (when (> (+ data nh-off) data-end)
          (return XDP_DROP))
        (setf h-proto (load u16 data (- nh-off 2)))))
    (setf ipproto (cond ((= h-proto (htons ETH_P_IP)) (ip4-proto-at data nh-off data-end))
                        ((= h-proto (htons ETH_P_IPV6)) (ip6-proto-at data nh-off data-end))
                        (t 0)))
    (incf (getmap rxcnt ipproto))
    XDP_DROP))
