// C twin of imm64.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define BIG      0x123456789abcdef0ULL
#define HIGH_BIT 0x8000000000000000ULL
#define ALL_ONES 0xffffffffffffffffULL
#define NEG_SEVEN ((__u64)-7)
#define LOW_MASK ((1ULL << 32) - 1)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 24);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

static __always_inline void set(__u32 k, __u64 v)
{
	bpf_map_update_elem(&results, &k, &v, BPF_ANY);
}

SEC("xdp")
int imm64(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 16 > data_end)
		return XDP_PASS;
	__u64 x = *(__u64 *)data;
	__u64 y = *(__u32 *)(data + 8);

	add(0, x + BIG);
	add(1, x ^ HIGH_BIT);
	add(2, x & ALL_ONES);
	add(3, y + NEG_SEVEN);
	add(4, y * (__u64)-1);
	add(5, x & 0xffffffff00000000ULL);
	add(6, y | 0x100000000ULL);
	add(7, x > 0x7fffffffffffffffULL ? 1 : 0);
	add(8, (y & 0xff) == 0xff ? 0xdeadbeefcafebabeULL : (__u64)-2147483648LL);
	add(9, x - 4294967296ULL);
	add(10, y + 2147483647ULL);
	add(11, y + 2147483648ULL);
	add(12, x & 0x80000000ULL);
	add(13, x & 0xffffffffULL);
	add(14, x & LOW_MASK);
	add(15, y < 0x80000000ULL ? 1 : 0);
	add(16, x >= 0xffffffffULL ? 1 : 0);
	add(17, x * 0x100000001ULL);
	add(18, (__s64)x < -1 ? 1 : 0);
	set(19, BIG);
	set(20, (__u64)-1);
	set(21, HIGH_BIT);
	set(22, NEG_SEVEN);
	return (__u32)(x ^ (BIG >> 7));
}

char LICENSE[] SEC("license") = "GPL";
