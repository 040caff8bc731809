;; expect: tests/errors/cast-bad-type.lisp:3:9: error: cast needs an integer type (u8 u16 u32 u64 i8 i16 i32 i64): u128
(defprog p (:type :xdp)
  (cast u128 1))
