// C twin of queue-stack.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__type(value, __u32);
	__uint(max_entries, 6);
} q SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__type(value, __u64);
	__uint(max_entries, 8);
} st SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__type(value, __u32);
	__uint(max_entries, 64);
	__uint(map_flags, BPF_F_ZERO_SEED);
} bl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);   /* as kiln's incf of a map element: atomic */
}

static __always_inline __u64 get(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	return v ? *v : 0;
}

SEC("xdp")
int qs(struct xdp_md *ctx)
{
	__u64 len = (__u64)ctx->data_end - ctx->data;
	__u32 len32 = len, plus = len + 1000, seven = 7, v32;
	__u64 len3 = len * 3, v64;

	add(0, (__s64)bpf_map_push_elem(&q, &len32, 0));
	bpf_map_push_elem(&st, &len3, 0);
	bpf_map_push_elem(&bl, &len32, 0);
	add(1, bpf_map_peek_elem(&bl, &len32) == 0);
	add(2, bpf_map_peek_elem(&bl, &plus) == 0);
	if (bpf_map_peek_elem(&q, &v32) == 0)
		add(3, v32);
	if (get(7) & 1) {
		if (bpf_map_pop_elem(&st, &v64) == 0)
			add(4, v64);
	}
	if (len > 60) {
		__u32 k = 5;
		__u64 r = (__s64)bpf_map_push_elem(&q, &seven, BPF_EXIST);

		bpf_map_update_elem(&results, &k, &r, 0);
	}
	add(7, 1);
	return bpf_map_pop_elem(&st, &v64) == 0 ? XDP_PASS : XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
