;; expect: tests/errors/struct-bad-type.lisp:2:32: error: unknown type 'ipv4addr' (expected u8 u16 u32 u64 i8 i16 i32 i64 char ptr ipv4 ipv6 kstack ustack, a kernel or C integer name (s32 __u16 __be32 int unsigned-long long-long bool size_t...), a defstruct name, (array TYPE N) or (* TYPE))
(defstruct flow (src u32) (dst ipv4addr))
