;; expect: tests/errors/make-event-def-type.lisp:3:46: error: unknown type 'time' (expected u8 u16 u32 u64 i8 i16 i32 i64 char ptr ipv4 ipv6 kstack ustack, a kernel or C integer name (s32 __u16 __be32 int unsigned-long long-long bool size_t...), a defstruct name, (array TYPE N) or (* TYPE))
(eval-when (:compile-toplevel)
  (make-event-def 'ping '([:pid :u32] [:when :time])))
(defmap m :type :ringbuf :max-entries 4096)
