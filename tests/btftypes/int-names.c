// C twin of int-names.lisp: the same struct and maps, with the kernel's typedefs declared
// as its headers declare them (uapi has only the __u32 family and __be16..).
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
typedef _Bool bool;

struct all_ints {
	char f_char;
	signed char f_signed_char;
	unsigned char f_unsigned_char;
	short f_short;
	unsigned short f_unsigned_short;
	int f_int;
	unsigned int f_unsigned_int;
	unsigned f_unsigned;
	long f_long;
	unsigned long f_unsigned_long;
	long long f_long_long;
	unsigned long long f_unsigned_long_long;
	__u8 k_u8;
	__s8 k_s8;
	__u16 k_u16;
	__s16 k_s16;
	__u32 k_u32;
	__s32 k_s32;
	__u64 k_u64;
	__s64 k_s64;
	u8 u8;
	u16 u16;
	u32 u32;
	u64 u64;
	s8 i8;     /* kiln's i8..i64 are the kernel's s8..s64 */
	s16 i16;
	s32 i32;
	s64 i64;
	s8 s8;
	s16 s16;
	s32 s32;
	s64 s64;
	__be16 be16;
	__be32 be32;
	__be64 be64;
	__le16 le16;
	__le32 le32;
	__le64 le64;
	bool flag;
	u8 bytes[6];
	u32 ids[3];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, u32);
	__type(value, struct all_ints);
	__uint(max_entries, 4);
} ints SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, u32);
	__type(value, u64);
	__uint(max_entries, 2);
} hits SEC(".maps");

SEC("xdp")
int touch(struct xdp_md *ctx)
{
	u32 k = 0;
	u64 *v = bpf_map_lookup_elem(&hits, &k);

	if (v)
		__sync_fetch_and_add(v, 1);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
