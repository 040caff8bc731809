;;; helper-not-allowed.lisp — skb-load-bytes, a helper for socket buffers, in an XDP program.
;; expect: helper-not-allowed 5:3 program of this type cannot use helper bpf_skb_load_bytes#26
;; hint: this helper does not exist for this program type
(defprog copy-head (:type :xdp)
  (skb-load-bytes ctx 0 (stack-buffer 8) 8)
  XDP_PASS)
