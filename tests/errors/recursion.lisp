;; expect: tests/errors/recursion.lisp:2:1: error: function 'ping' is recursive (through 'pong'); BPF has no recursion
(defun ping (n) (pong n))
(defun pong (n) (ping n))
(defprog p (:type :xdp) (ping 1))
