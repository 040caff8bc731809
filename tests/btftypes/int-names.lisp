;; int-names — every integer type name kiln takes, as the member types of one struct, and
;; the chains it shares with a map's key and value. tests/suites/btftypes.sh compares the
;; BTF with clang's for int-names.c, the same struct in C: typedef chains as the kernel's
;; headers spell them (u32 -> __u32 -> unsigned int), C's own names for C's types, and
;; each chain once per object however many members use it. (size_t is checked against the
;; kernel's own BTF instead: for -target bpf, the x86 uapi headers make it 4 bytes.)
(defstruct all-ints
  (f-char char) (f-signed-char signed-char) (f-unsigned-char unsigned-char)
  (f-short short) (f-unsigned-short unsigned-short)
  (f-int int) (f-unsigned-int unsigned-int) (f-unsigned unsigned)
  (f-long long) (f-unsigned-long unsigned-long)
  (f-long-long long-long) (f-unsigned-long-long unsigned-long-long)
  (k-u8 __u8) (k-s8 __s8) (k-u16 __u16) (k-s16 __s16)
  (k-u32 __u32) (k-s32 __s32) (k-u64 __u64) (k-s64 __s64)
  (u8 u8) (u16 u16) (u32 u32) (u64 u64) (i8 i8) (i16 i16) (i32 i32) (i64 i64)
  (s8 s8) (s16 s16) (s32 s32) (s64 s64)
  (be16 __be16) (be32 __be32) (be64 __be64) (le16 __le16) (le32 __le32) (le64 __le64)
  (flag bool)
  (bytes (array u8 6)) (ids (array u32 3)))

(defmap ints :type :hash :key u32 :value all-ints :max-entries 4)
(defmap hits :type :array :key u32 :value u64 :max-entries 2)

(defprog touch (:type :xdp)
  (incf (getmap hits 0))
  XDP_PASS)

;; in no map: clang's headers cannot spell it for BPF, so only its chain is checked, against
;; the kernel's BTF
(defstruct kernel-sizes (size size_t))
