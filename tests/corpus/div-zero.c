// C twin of div-zero.lisp. Division by zero is undefined in C, so the twin spells out the
// BPF semantics kiln promises: x / 0 == 0 and x % 0 == x.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} results SEC(".maps");

static __always_inline __u64 udiv(__u64 x, __u64 y) { return y ? x / y : 0; }
static __always_inline __u64 umod(__u64 x, __u64 y) { return y ? x % y : x; }

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int div_zero(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 17 > data_end)
		return XDP_PASS;
	__u64 y = *(__u64 *)(data + 0);
	__u64 x = *(__u64 *)(data + 8);
	__u64 z = *(__u8 *)(data + 16);
	__u64 q = udiv(x, y), r = umod(x, y);
	__u64 q8 = udiv(x, z), r8 = umod(x, z);

	add(0, q);
	add(1, r);
	add(2, q8);
	add(3, r8);
	add(4, udiv(1000, z));
	add(5, umod(1000, z));
	add(6, y == 0 ? 1 : 0);
	add(7, udiv(r * 3, z - 1) + umod(q, y));
	return (__u32)(q + r + q8 + r8);
}

char LICENSE[] SEC("license") = "GPL";
