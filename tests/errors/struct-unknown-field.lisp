;; expect: tests/errors/struct-unknown-field.lisp:5:13: error: unknown function or form 'flow-port' in (flow-port f); did you mean flow-sport or flow-dport?
(defstruct flow (saddr u32) (daddr u32) (sport u16) (dport u16))
(defprog p (:type :xdp)
  (let ((f (+ (ctx data) 26)))
    (if (= (flow-port f) 80) XDP_DROP XDP_PASS)))
