// C twin of xdp-adjust.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

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
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int vlan_push(struct xdp_md *ctx)
{
	long rc = bpf_xdp_adjust_head(ctx, -4);

	add(0, rc);
	if (rc != 0)
		return XDP_ABORTED;

	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 18 > data_end)
		return XDP_DROP;
	*(__u32 *)data = *(__u32 *)(data + 4);
	*(__u32 *)(data + 4) = *(__u32 *)(data + 8);
	*(__u32 *)(data + 8) = *(__u32 *)(data + 12);
	*(__u16 *)(data + 12) = bpf_htons(0x8100);
	*(__u16 *)(data + 14) = bpf_htons(0x2000 | (*(__u8 *)(data + 17) & 0x0fff));
	add(1, data_end - data);
	return XDP_TX;
}

SEC("xdp")
int strip_eth(struct xdp_md *ctx)
{
	long rc = bpf_xdp_adjust_head(ctx, 14);

	add(2, rc);
	add(3, rc == 0 ? 1 : 0);

	long tail = bpf_xdp_adjust_tail(ctx, -4);

	add(4, tail);

	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	add(5, data_end - data);
	if (data + 1 > data_end)
		return XDP_DROP;
	*(__u8 *)data |= 1;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
