// C twin of cmp-bounds.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 5);
} vals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 32);
} masks SEC(".maps");

static __u64 cmp_mask(__u64 a, __u64 b)
{
	__s64 sa = a, sb = b;

	return (a == b ? 1 : 0) | (a != b ? 2 : 0) | (a < b ? 4 : 0) | (a <= b ? 8 : 0) |
	       (a > b ? 16 : 0) | (a >= b ? 32 : 0) | (sa < sb ? 64 : 0) | (sa <= sb ? 128 : 0) |
	       (sa > sb ? 256 : 0) | (sa >= sb ? 512 : 0);
}

static __always_inline __u64 get(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&vals, &k);

	return v ? *v : 0;
}

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&masks, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&masks, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int cmp_bounds(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 digest = 0;

	if (data + 40 > data_end)
		return XDP_PASS;
	for (int i = 0; i < 5; i++) {
		__u32 k = i;
		__u64 v = *(__u64 *)(data + i * 8);

		bpf_map_update_elem(&vals, &k, &v, BPF_ANY);
	}
	for (__u32 i = 0; i < 5; i++) {
		for (__u32 j = 0; j < 5; j++) {
			__u64 m = cmp_mask(get(i), get(j));

			add(i * 5 + j, m);
			digest = digest * 3 + m;
		}
	}
	add(100, digest);
	return (__u32)(digest ^ (digest >> 32));
}

char LICENSE[] SEC("license") = "GPL";
