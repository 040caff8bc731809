;; expect: tests/errors/offsetof-unknown-field.lisp:3:41: error: flow has no field 'port'
(defstruct flow (saddr u32) (daddr u32) (sport u16) (dport u16))
(defconstant port-offset (offsetof flow port))
(defprog p (:type :xdp) port-offset)
