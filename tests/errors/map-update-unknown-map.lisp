;; expect: tests/errors/map-update-unknown-map.lisp:4:15: error: unknown map 'last-sen'
(defmap last-seen :type :hash :key u32 :value u64 :max-entries 1024)
(defprog stamp (:type :xdp)
  (map-update last-sen (ctx ingress-ifindex) (ktime-get-ns))
  XDP_PASS)
