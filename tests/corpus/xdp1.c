// C twin of xdp1.lisp: the shape of Linux's samples/bpf/xdp1_kern.c, written against the
// uapi headers alone. The kernel's own u16/u32/u64 (asm-generic/int-ll64.h) are not in
// them, so they are declared here the same way: typedef __u32 u32, and so on.
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

struct vlan_tag {
	__be16 tci;
	__be16 encapsulated_proto;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, u32);
	__type(value, long);
	__uint(max_entries, 256);
} rxcnt SEC(".maps");

static __always_inline int ip4_proto_at(void *data, u64 nh_off, void *data_end)
{
	if (data + nh_off + 20 > data_end)
		return 0;
	return *(__u8 *)(data + nh_off + 9);
}

static __always_inline int ip6_proto_at(void *data, u64 nh_off, void *data_end)
{
	if (data + nh_off + 40 > data_end)
		return 0;
	return *(__u8 *)(data + nh_off + 6);
}

SEC("xdp")
int xdp_prog1(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	u64 nh_off = 14;
	u16 h_proto;
	u32 ipproto;
	long *value;

	if (data + nh_off > data_end)
		return XDP_DROP;
	h_proto = ((struct ethhdr *)data)->h_proto;
	for (int i = 0; i < 2; i++) {
		if (h_proto == bpf_htons(ETH_P_8021Q) || h_proto == bpf_htons(ETH_P_8021AD)) {
			struct vlan_tag *tag = data + nh_off;

			nh_off += sizeof(*tag);
			if (data + nh_off > data_end)
				return XDP_DROP;
			h_proto = tag->encapsulated_proto;
		}
	}
	if (h_proto == bpf_htons(ETH_P_IP))
		ipproto = ip4_proto_at(data, nh_off, data_end);
	else if (h_proto == bpf_htons(ETH_P_IPV6))
		ipproto = ip6_proto_at(data, nh_off, data_end);
	else
		ipproto = 0;
	value = bpf_map_lookup_elem(&rxcnt, &ipproto);
	if (value)
		*value += 1;
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
