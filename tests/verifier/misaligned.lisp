;;; misaligned.lisp — a u32 stored at byte 1 of a stack buffer: stack accesses must be
;; aligned to their size.
;; expect: misaligned 7:5 misaligned stack access off 0+-16+1 size 4
;; hint: aligned to its size
(defprog odd (:type :xdp)
  (let ((buf (stack-buffer 16)))
    (store u32 buf 1 7)
    (load u16 buf 4)))   ; a read of the slot (not all of the store's bytes: it stays)
