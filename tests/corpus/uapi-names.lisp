;; uapi-names — uapi constants beyond the ones the reference lists by name ("and the other
;; uapi names you'd expect"): map flags, more tc actions, redirect and index flags.
;; Proves: each name has its <linux/bpf.h> / <linux/pkt_cls.h> value, including the
;; negative TC_ACT_UNSPEC as a 64-bit value, and a flag constant used as a map-update
;; flags argument.
(defmap results :type :array :key u32 :value u64 :max-entries 16)
(defmap seen :type :hash :key u32 :value u64 :max-entries 8 :map-flags BPF_F_NO_PREALLOC)

(defprog uapi-names (:type :tc)
  (setf (getmap results 0) BPF_F_NO_PREALLOC
        (getmap results 1) BPF_F_NO_COMMON_LRU
        (getmap results 2) TC_ACT_UNSPEC
        (getmap results 3) TC_ACT_PIPE
        (getmap results 4) TC_ACT_REDIRECT
        (getmap results 5) TC_ACT_RECLASSIFY
        (getmap results 6) BPF_F_INGRESS
        (getmap results 7) BPF_F_INDEX_MASK
        (getmap results 8) BPF_F_RDONLY
        (getmap results 9) BPF_F_WRONLY)
  (incf (getmap results 10) (map-update seen (ctx len) (ctx protocol) BPF_NOEXIST))
  (if (> (ctx len) 100) TC_ACT_PIPE TC_ACT_OK))
