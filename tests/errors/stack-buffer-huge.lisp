;; expect: tests/errors/stack-buffer-huge.lisp:3:28: error: stack buffer of 600 bytes in 'copy-pkt' does not fit the 512-byte BPF stack
(defprog copy-pkt (:type :xdp)
  (let ((buf (stack-buffer 600)))
    (store u8 buf 0 (load u8 (ctx data) 0))
    XDP_PASS))
