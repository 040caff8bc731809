// C twin of thread.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} paths SEC(".maps");

static __always_inline void count(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&paths, &k);
	if (v)
		__sync_fetch_and_add(v, 1);
}

SEC("xdp")
int thread(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	if (data + 8 > end)
		return XDP_ABORTED;
	__u8 p = *(__u8 *)data;
	int lng = data + 40 <= end;
	if (p == 6 && lng) {
		count(0);
		return XDP_PASS;
	}
	if (p == 6) {
		count(1);
		return XDP_TX;
	}
	count(2);
	return XDP_DROP;
}
