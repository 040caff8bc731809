// C twin of struct-flow.lisp
#include <stddef.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct eth_hdr {
	__u8 dst[6];
	__u8 src[6];
	__u16 proto;
};

struct flow_key {
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
	__u8 proto;
};

struct flow_stats {
	__u64 packets;
	__u64 bytes;
	__u16 last_len;
	__u8 tcp_flags;
	__u8 syns;
	__u32 first_ttl;
};

struct pkt_summary {
	struct eth_hdr eth;
	__u8 ttl;
	__u64 len;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct flow_key);
	__type(value, struct flow_stats);
	__uint(max_entries, 64);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} results SEC(".maps");

static __always_inline void set(__u32 k, __u64 v)
{
	bpf_map_update_elem(&results, &k, &v, BPF_ANY);
}

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int struct_flow(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct eth_hdr *eth = data;
	struct flow_key key;
	struct flow_stats *st;

	if (data + 54 > data_end)
		return XDP_PASS;
	if (bpf_ntohs(eth->proto) != 0x0800)
		return XDP_PASS;

	__u8 *ip = data + sizeof(struct eth_hdr);
	__u64 len = data_end - data;

	__builtin_memset(&key, 0, sizeof(key));
	key.saddr = *(__u32 *)(ip + 12);
	key.daddr = *(__u32 *)(ip + 16);
	key.proto = ip[9];
	key.sport = bpf_ntohs(*(__u16 *)(ip + 20));
	key.dport = bpf_ntohs(*(__u16 *)(ip + 22));
	st = bpf_map_lookup_elem(&flows, &key);
	if (st) {
		st->packets++;
		st->bytes += len;
		st->last_len = len;
	} else {
		struct flow_stats fresh;

		__builtin_memset(&fresh, 0, sizeof(fresh));
		fresh.packets = 1;
		fresh.bytes = len;
		fresh.last_len = len;
		fresh.first_ttl = ip[8];
		bpf_map_update_elem(&flows, &key, &fresh, BPF_NOEXIST);
	}
	if (key.proto == 6) {
		st = bpf_map_lookup_elem(&flows, &key);
		if (st) {
			st->tcp_flags |= ip[33];
			if (ip[33] & 2)
				st->syns++;
		}
	}
	set(0, sizeof(struct flow_key));
	set(1, sizeof(struct flow_stats));
	set(2, offsetof(struct flow_key, proto));
	set(3, offsetof(struct flow_stats, tcp_flags));
	set(4, offsetof(struct flow_stats, first_ttl));
	set(5, sizeof(struct eth_hdr));
	set(6, sizeof(struct pkt_summary));
	set(7, offsetof(struct pkt_summary, ttl));
	set(8, offsetof(struct pkt_summary, len));
	set(9, offsetof(struct eth_hdr, proto));
	st = bpf_map_lookup_elem(&flows, &key);
	add(10, st ? st->packets : 0);
	add(11, (__u64)key.sport + key.saddr);
	return key.dport;
}

char LICENSE[] SEC("license") = "GPL";
