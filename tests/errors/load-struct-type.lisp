;; expect: tests/errors/load-struct-type.lisp:5:11: error: load/store needs a scalar type (u8 u16 u32 u64 i8 i16 i32 i64): flow
(defstruct flow (saddr u32) (daddr u32))
(defprog p (:type :xdp)
  (let ((data (ctx data)))
    (load flow data 26)))
