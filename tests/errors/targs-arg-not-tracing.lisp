;; expect: tests/errors/targs-arg-not-tracing.lisp:3:3: error: (arg) reads a tracing program's arguments (:tp-btf, :raw-tracepoint, :fentry, :fexit, :fmod-ret, :lsm); this is :xdp
(defprog pass (:type :xdp)
  (arg 0))
