;;; ctx-access.lisp — a write to the XDP context (struct xdp_md is read-only) through its
;; raw pointer, which kiln cannot check by field name.
;; expect: ctx-access 6:3 invalid bpf_context access off=0 size=4
;; hint: a context field this program type (or attach point) does not allow
(defprog scribble (:type :xdp)
  (store u32 (ctx-ptr) 0 1)
  XDP_PASS)
