;; mapkeys.lisp — maps whose keys and values are typed by their BTF, for kiln_map_parse_key and
;; _value (tests/unit/test_mapparse.c) and `kiln map set/get` (tests/suites/mapkeys.sh): a flow
;; key of :ipv4 addresses and u16 ports, a value of every kind the parser writes (u8 u16 u32
;; u64 i32, ipv6, a char array, a nested struct, an integer array), a per-CPU value, an lpm-trie
;; keyed by a struct, an :ipv4 key. The program only has to load; the maps are written from user space.
(defstruct flow (saddr ipv4) (daddr ipv4) (sport u16) (dport u16))
(defstruct rec
  (a u8) (b u16) (c u32) (d u64) (e i32)
  (addr6 ipv6)
  (name (array char 16))
  (inner flow)
  (nums (array u32 4)))
(defstruct lpm-key (prefixlen u32) (addr u32))
(defmap flows :type :hash :key flow :value u64 :max-entries 16)
(defmap recs :type :hash :key u32 :value rec :max-entries 16)
(defmap by-rec :type :hash :key rec :value flow :max-entries 4)
(defmap per-cpu :type :percpu-hash :key u32 :value u64 :max-entries 4)
(defmap per-cpu-flows :type :percpu-array :key u32 :value flow :max-entries 2)
(defmap by-addr :type :hash :key ipv4 :value u32 :max-entries 4)
(defmap small :type :hash :key i16 :value u8 :max-entries 4)
(defmap routes :type :lpm-trie :key lpm-key :value u32 :map-flags 1 :max-entries 8)
(defprog pass (:type :xdp) XDP_PASS)
