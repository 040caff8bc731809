;; expect: tests/errors/stack-buffer-huge.lisp:3:17: error: stack buffer of 1024 bytes does not fit the 512-byte BPF stack
(defprog p (:type :xdp)
  (stack-buffer 1024))
