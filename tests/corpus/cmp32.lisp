;; cmp32 — comparisons of signed 32-bit values, which kiln makes JMP32 instructions (the pass
;; jmp32: the low 32 bits compared, no sign extension), against clang's 64-bit compares of
;; the sign-extended values.
;; Proves: every condition (signed, unsigned, equality) of an i32 against constants
;; at the edges (-2^31, -1, 0, 100, 2^31-1) and of two i32s, for words that are negative,
;; zero, positive and at both ends of the 32-bit range: each outcome counted in its own entry
;; (y is also compared with 2^32-1, which needs 64 bits: that branch keeps its extension).
;; twin-args: --input 020000000002020000000001080045000000ffffffff80000000000000
;; twin-args: --input 0200000000020200000000010800450000007fffffff000000640000
;; twin-args: --input 02000000000202000000000108004500000080000000fffffff00000
;; twin-args: --input 02000000000202000000000108004500000000000064ffffffff0000
;; twin-args: --input 02000000000202000000000108004500000000000000000000000000
(defmap hits :type :array :key u32 :value u64 :max-entries 32)

(defmacro count-if (n test)
  `(when ,test (incf (getmap hits ,n))))

(defprog cmp32 (:type :xdp)
  (let ((data (ctx data)))
    (when (> (+ data 24) (ctx data-end))
      (return XDP_PASS))
    (let ((x i32 (ntohl (load u32 data 16)))
          (y i32 (ntohl (load u32 data 20))))
      (count-if 0 (s< x 0))
      (count-if 1 (s<= x -1))
      (count-if 2 (s> x 100))
      (count-if 3 (s>= x 2147483647))
      (count-if 4 (s< x -2147483647))
      (count-if 5 (= x -1))
      (count-if 6 (/= x 0))
      (count-if 7 (= x -2147483648))
      (count-if 8 (< x 100))
      (count-if 9 (>= x 100))
      (count-if 10 (> x 2147483647))
      (count-if 11 (<= x 0))
      (count-if 12 (= x 2147483647))
      (count-if 13 (s< x y))
      (count-if 14 (s>= x y))
      (count-if 15 (< x y))
      (count-if 16 (>= y x))
      (count-if 17 (= x y))
      (count-if 18 (s> y -16))
      (count-if 19 (< y 4294967295))
      (if (s< x y) XDP_DROP XDP_PASS))))
