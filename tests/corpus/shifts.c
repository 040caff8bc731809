// C twin of shifts.lisp. Shifting by 64 or more is undefined in C, so the twin spells out
// the BPF semantics kiln promises: the amount is taken modulo 64.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} results SEC(".maps");

static __always_inline __u64 shl(__u64 x, __u64 n) { return x << (n & 63); }
static __always_inline __u64 shr(__u64 x, __u64 n) { return x >> (n & 63); }
static __always_inline __u64 sar(__u64 x, __u64 n) { return (__u64)((__s64)x >> (n & 63)); }

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int shifts(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 10 > data_end)
		return XDP_PASS;
	__u64 x = *(__u64 *)data;
	__u64 n = *(__u8 *)(data + 8);
	__u64 m = *(__u8 *)(data + 9);

	add(0, shl(x, n));
	add(1, shr(x, n));
	add(2, sar(x, n));
	add(3, shl(x, m));
	add(4, shr(x, m));
	add(5, sar(x, m));
	add(6, shl(1, n));
	add(7, sar(0x8000000000000000ULL, m));
	add(8, shr(0x8000000000000000ULL, m));
	add(9, x << 32);
	add(10, x >> 33);
	add(11, sar(x, 63));
	add(12, (x & 0xff) << 56);
	add(13, sar(x << 56, 60));
	add(14, shr(shl(x, n), m));
	return (__u32)(shl(x, n) ^ shr(x, m) ^ sar(x, 7));
}

char LICENSE[] SEC("license") = "GPL";
