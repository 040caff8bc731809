// C twin of wh-core-ctx.lisp: the same reads as plain context accesses
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

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
		__sync_fetch_and_add(v, d);
}

SEC("xdp")
int cx_xdp(struct xdp_md *ctx)
{
	__u64 data = ctx->data, data_end = ctx->data_end;
	unsigned char *p = (void *)(long)ctx->data;

	add(0, data_end - data);
	add(1, ctx->ingress_ifindex);
	if ((void *)(p + 34) > (void *)(long)ctx->data_end)
		return XDP_DROP;
	add(2, p[23]);
	return p[23] == 6 ? XDP_TX : XDP_PASS;
}

SEC("tc")
int cx_tc(struct __sk_buff *skb)
{
	__u64 len = skb->len, proto = skb->protocol;

	add(3, len);
	add(4, proto);
	add(5, skb->mark);
	return len & 7;
}

char LICENSE[] SEC("license") = "GPL";
