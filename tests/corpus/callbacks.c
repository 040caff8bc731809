// C twin of callbacks.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} vals SEC(".maps");

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

static long add_scaled(__u64 i, void *ctx)
{
	__u64 *acc = ctx;

	acc[0] += i * acc[1];
	return 0;
}

static long stop_at_5(__u64 i, void *ctx)
{
	__u64 *acc = ctx;

	if (i >= 5)
		return 1;
	acc[0] += 1;
	return 0;
}

static long sum_values(void *m, void *k, void *v, void *ctx)
{
	__u64 *acc = ctx;

	acc[0] += *(__u64 *)v;
	acc[1] += 1;
	return 0;
}

SEC("xdp")
int cb(struct xdp_md *ctx)
{
	__u64 len = (__u64)ctx->data_end - (__u64)ctx->data;
	__u64 acc[2] = { 0, len };
	__u32 k = len & 3;

	add(0, bpf_loop(8, add_scaled, acc, 0));
	add(1, acc[0]);
	acc[0] = 0;
	add(2, bpf_loop(100, stop_at_5, acc, 0));
	add(3, acc[0]);
	bpf_map_update_elem(&vals, &k, &len, BPF_ANY);
	acc[0] = 0;
	acc[1] = 0;
	add(4, bpf_for_each_map_elem(&vals, sum_values, acc, 0));
	add(5, acc[0]);
	add(6, acc[1]);
	return len > 60 ? XDP_PASS : XDP_DROP;
}

char _license[] SEC("license") = "GPL";
