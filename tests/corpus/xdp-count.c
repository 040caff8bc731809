// C twin of xdp-count.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} pkt_count SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} byte_count SEC(".maps");

static __always_inline void map_add(void *map, const void *key, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(map, key);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(map, key, &d, BPF_NOEXIST);
}

SEC("xdp")
int xdp_count(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 class;
	__u64 proto;

	if (data + 14 > data_end)
		return XDP_PASS;
	proto = bpf_ntohs(*(__u16 *)(data + 12));
	if (proto == 0x0800)
		class = 0;
	else if (proto == 0x86dd)
		class = 1;
	else if (proto == 0x0806)
		class = 2;
	else
		class = 3;
	map_add(&pkt_count, &class, 1);
	map_add(&byte_count, &class, (__u64)(data_end - data));
	return class == 3 ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
