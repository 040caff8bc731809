;;; in-subprogram.lisp — the unchecked packet read is in a defun, two calls down: libbpf
;; appends the functions to the program, and kiln maps the instruction back to the defun.
;; expect: packet-bounds 6:8 R1 offset is outside of the packet
;; hint: (ctx data-end)
(defun first-byte (p)
  (+ 1 (load u8 p 12)))
(defun twice (p) (* 2 (first-byte p)))
(defprog p (:type :xdp)
  (if (= (twice (ctx data)) 8) XDP_DROP XDP_PASS))
