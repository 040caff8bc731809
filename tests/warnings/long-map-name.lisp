;; expect: tests/warnings/long-map-name.lisp:4:9: warning: map name 'packets-per-protocol' is 20 characters: the kernel keeps the first 15 ('packets_per_pro', what bpftool and `kiln map list` show); kiln, libbpf and pins use the whole name
;;; long-map-name.lisp — a map name over the kernel's 15 characters is said so, not cut
;;; silently; Whistler's ring buffer with :key-size 0 :value-size 0 is taken as it is.
(defmap packets-per-protocol :type :array :key u32 :value u64 :max-entries 4)
(defmap rb :type :ringbuf :key-size 0 :value-size 0 :max-entries 4096)
(defprog p (:type :xdp)
  (incf (getmap packets-per-protocol 0))
  (ringbuf-output rb (stack-buffer 8) 8 0)
  XDP_PASS)
