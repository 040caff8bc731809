// C twin of big-tailcall.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

enum { H_TCP, H_UDP, H_ICMP, H_OTHER };

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 4);
	__uint(max_entries, 4);
} handlers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 64);
} ports SEC(".maps");

static __always_inline void map_add(void *map, __u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(map, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(map, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int big_dispatch(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;

	if (data + 34 > data_end)
		return XDP_PASS;
	if (*(__u16 *)(p + 12) != bpf_htons(0x0800)) {
		map_add(&results, 5, 1);
		return XDP_PASS;
	}
	__u8 proto = p[23];
	__u32 idx = proto == 6 ? H_TCP : proto == 17 ? H_UDP : proto == 1 ? H_ICMP : H_OTHER;

	map_add(&results, idx, 1);
	bpf_tail_call(ctx, &handlers, idx);
	map_add(&results, 4, 1);
	return XDP_PASS;
}

SEC("xdp")
int big_h_tcp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;

	if (data + 54 > data_end || p[23] != 6)
		return XDP_PASS;
	map_add(&ports, bpf_ntohs(*(__u16 *)(p + 36)), 1);
	if ((p[47] & 0x12) == 0x02)
		map_add(&results, 6, 1);
	return bpf_ntohs(*(__u16 *)(p + 36)) == 23 ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int big_h_udp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;

	if (data + 42 > data_end || p[23] != 17)
		return XDP_PASS;
	map_add(&ports, bpf_ntohs(*(__u16 *)(p + 36)) | 0x10000, 1);
	return XDP_PASS;
}

SEC("xdp")
int big_h_icmp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;

	if (data + 42 > data_end || p[23] != 1)
		return XDP_PASS;
	map_add(&ports, p[34] | 0x20000, 1);
	if (p[34] == 8)
		map_add(&results, 7, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
