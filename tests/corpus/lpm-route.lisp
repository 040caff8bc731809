;; lpm-route — longest-prefix-match routing of IPv4 addresses with an :lpm-trie.
;; Proves: defmap :lpm-trie with :key-size/:value-size and :map-flags 1 (BPF_F_NO_PREALLOC);
;; a key built in a stack buffer (prefix length, then the address in network order) and
;; passed as a pointer to map-update, map-lookup and getmap; reusing the buffer for several
;; keys; htonl of constants; if-let with an else value; a u64-keyed :hash for the counts.
;; The program installs its own routes (10.0.0.0/8 -> 1, 10.0.0.0/24 -> 2,
;; 10.0.0.53/32 -> 3) and looks up both addresses of every IPv4 packet.
;; twin-args: --input 020000000002020000000001080045000028432100004006788cac1000010a0909090457001600000007000000005002040000000000
;; twin-args: --input 0200000000020200000000010800450000204321000040116bb60a00004dc0a8010113880035000c000061626364
;; twin-args: --input 02000000000202000000000108004500002843210000400623720a0000090a00003508ae003500000007000000005002040000000000
(defmap routes :type :lpm-trie :key-size 8 :value-size 8 :max-entries 16 :map-flags 1)
(defmap hits :type :hash :key u64 :value u64 :max-entries 16)

(defprog lpm-route (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end))
        (k (stack-buffer 8)))
    (when (> (+ data 34) data-end)
      (return XDP_PASS))
    (unless (= (ntohs (load u16 data 12)) #x0800)
      (return XDP_PASS))
    (store u32 k 0 8)
    (store u32 k 4 (htonl #x0a000000))
    (map-update routes k 1)
    (store u32 k 0 24)
    (map-update routes k 2)
    (store u32 k 0 32)
    (store u32 k 4 (htonl #x0a000035))
    (map-update routes k 3)
    (let ((ip (+ data 14)))
      (store u32 k 4 (load u32 ip 16))
      (let ((route (if-let (v (map-lookup routes k))
                     (load u64 v 0)
                     0)))
        (incf (getmap hits route))
        (store u32 k 4 (load u32 ip 12))
        (incf (getmap hits (+ 100 (getmap routes k))))
        (store u32 k 0 16)
        (incf (getmap hits (+ 200 (getmap routes k))))
        route))))
