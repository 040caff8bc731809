// C twin of wh-pkt-xdp.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 24);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
}

SEC("xdp")
int px_packet(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	add(0, 1);
	if (data + 20 > data_end)
		return XDP_PASS;
	add(1, data_end - data);
	return 100 + *(__u8 *)(data + 19);
}

SEC("xdp")
int px_eth(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 14 > data_end)
		return XDP_PASS;
	__u16 type = bpf_ntohs(*(__u16 *)(data + 12));
	add(2, type);
	if (type == 0x0806)
		return XDP_TX;
	if (type == 0x86dd)
		return XDP_DROP;
	add(3, 1);
	return 10 + (data_end - data);
}

SEC("xdp")
int px_ipv4(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 34 > data_end)
		return XDP_PASS;
	if (*(__u16 *)(data + 12) == bpf_htons(0x0800)) {
		void *ip = data + 14;

		add(4, *(__u8 *)(ip + 9));
		add(5, *(__u32 *)(ip + 12));
		add(6, *(__u32 *)(ip + 16));
		add(7, (__u64)bpf_ntohs(*(__u16 *)(ip + 2)) - 20);
		return 1000 + *(__u8 *)(ip + 8);
	}
	add(8, 1);
	return XDP_DROP;
}

SEC("xdp")
int px_tcp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 54 > data_end)
		return XDP_PASS;
	if (*(__u16 *)(data + 12) == bpf_htons(0x0800) && *(__u8 *)(data + 23) == 6) {
		void *tcp = data + 34;
		__u16 dport = bpf_ntohs(*(__u16 *)(tcp + 2));
		__u8 flags = *(__u8 *)(tcp + 13);

		add(9, bpf_ntohs(*(__u16 *)tcp));
		add(10, dport);
		add(11, bpf_ntohl(*(__u32 *)(tcp + 4)));
		add(12, flags);
		if (dport == 9999)
			return XDP_DROP;
		if (flags & 0x01)
			return 77;
		if (flags == 0x10)
			return XDP_TX;
		if (flags & 0x02)
			add(13, 1);
	}
	add(14, 1);
	return XDP_ABORTED;
}

SEC("xdp")
int px_udp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 42 > data_end)
		return XDP_PASS;
	if (*(__u16 *)(data + 12) == bpf_htons(0x0800) && *(__u8 *)(data + 23) == 17) {
		void *udp = data + 34;
		__u16 dport = bpf_ntohs(*(__u16 *)(udp + 2));
		__u16 len = bpf_ntohs(*(__u16 *)(udp + 4));

		add(15, bpf_ntohs(*(__u16 *)udp));
		add(16, dport);
		add(17, len);
		return dport == 53 ? XDP_TX : 200 + len;
	}
	add(18, data_end - data);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
