// C twin of arith.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} sums SEC(".maps");

static __always_inline void set(__u32 k, __u64 v)
{
	bpf_map_update_elem(&results, &k, &v, BPF_ANY);
}

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&sums, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&sums, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int arith(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 34 > data_end)
		return XDP_PASS;
	__u64 a = *(__u64 *)(data + 0);
	__u64 b = *(__u32 *)(data + 8);
	__u64 c = *(__u16 *)(data + 12);
	__u64 d = *(__u8 *)(data + 23);
	__u64 e = *(__u32 *)(data + 26);
	__u64 divisor = d | 1;

	set(0, a + b + c + d);
	set(1, b - a);
	set(2, a * e);
	set(3, b * b);
	set(4, a / divisor);
	set(5, a % divisor);
	set(6, -a);
	set(7, c * 1000 - d * 77 - 5);
	set(8, a * 3 + e / 7 + b % 10);
	set(9, (0 - e) / (c + 1));
	set(10, (-d) * (-e));
	add(0, a * b);
	add(1, c - d);
	add(2, e / divisor);
	add(3, (a * 7) % (e + 1));
	return (__u32)(a % 1000 + d * 1000000);
}

char LICENSE[] SEC("license") = "GPL";
