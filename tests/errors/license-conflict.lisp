;; expect: tests/errors/license-conflict.lisp:3:33: error: license "MIT" differs from "GPL" given at line 2
(defprog a (:type :xdp :license "GPL") XDP_PASS)
(defprog b (:type :xdp :license "MIT") XDP_PASS)
