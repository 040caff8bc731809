// C twin of big-flowtable.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct flow {
	__u32 saddr, daddr;
	__u16 sport, dport;
	__u8 proto, pad[3];
};

struct flowstat {
	__u64 packets, bytes;
	__u32 first_len, tcp_flags;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct flow);
	__type(value, struct flowstat);
	__uint(max_entries, 1024);
} flows SEC(".maps");

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
int big_flowtable(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;

	if (data + 34 > data_end)
		return XDP_PASS;
	if (!(*(__u16 *)(p + 12) == bpf_htons(0x0800) && (p[14] & 15) == 5)) {
		add(2, 1);
		return XDP_PASS;
	}
	struct flow k = {};
	__u8 proto = p[23];
	__u64 len = data_end - data;
	__u32 flags = 0;

	k.saddr = *(__u32 *)(p + 26);
	k.daddr = *(__u32 *)(p + 30);
	k.proto = proto;
	if (proto == 6 || proto == 17) {
		if (data + 54 > data_end)
			return XDP_PASS;
		k.sport = *(__u16 *)(p + 34);
		k.dport = *(__u16 *)(p + 36);
		if (proto == 6)
			flags = p[47];
	}
	add(3, len);
	struct flowstat *s = bpf_map_lookup_elem(&flows, &k);

	if (!s) {
		struct flowstat n = {};

		n.packets = 1;
		n.bytes = len;
		n.first_len = len;
		n.tcp_flags = flags;
		bpf_map_update_elem(&flows, &k, &n, BPF_NOEXIST);
		add(0, 1);
		return XDP_PASS;
	}
	s->packets += 1;
	s->bytes += len;
	s->tcp_flags |= flags;
	add(1, 1);
	if (s->packets > 4) {
		add(4, 1);
		return XDP_DROP;
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
