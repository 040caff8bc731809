// C twin of map-reuse.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} results SEC(".maps");

static __always_inline __u64 get(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&counts, &k);

	return v ? *v : 0;
}

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
}

SEC("xdp")
int map_reuse(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 8 > data_end)
		return XDP_PASS;
	__u32 k = *(__u8 *)data & 7;

	if (k < 4) {
		__u64 v = 100;

		bpf_map_update_elem(&counts, &k, &v, BPF_ANY);
	}
	__u64 *p = bpf_map_lookup_elem(&counts, &k);

	if (p) {
		*p = *p + 5;
		add(1, get(k));
		add(2, get(k + 1));
		return XDP_DROP;
	}
	add(3, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
