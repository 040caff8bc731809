// C twin of wh-parse.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 20);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
}

static __always_inline void *parse_eth(void *d, void *de)
{
	return d + 14 > de ? 0 : d;
}

static __always_inline void *parse_ipv4(void *d, void *de)
{
	if (d + 34 > de || *(__u16 *)(d + 12) != bpf_htons(0x0800))
		return 0;
	return d + 14;
}

static __always_inline void *parse_l4(void *d, void *de, __u8 proto, int len)
{
	if (d + 34 + len > de || *(__u16 *)(d + 12) != bpf_htons(0x0800) ||
	    *(__u8 *)(d + 23) != proto)
		return 0;
	return d + 34;
}

SEC("xdp")
int pp_parse(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 verdict = XDP_PASS;
	void *eth, *udp, *tcp, *ip;

	if (parse_eth(data, data_end))
		add(0, 1);
	if (parse_ipv4(data, data_end))
		add(1, 1);
	if (parse_l4(data, data_end, 6, 20))
		add(2, 1);
	if (parse_l4(data, data_end, 17, 8))
		add(3, 1);
	if ((eth = parse_eth(data, data_end)) && (udp = parse_l4(eth, data_end, 17, 8))) {
		__u16 dport = bpf_ntohs(*(__u16 *)(udp + 2));

		add(4, dport);
		if (dport == 53 && udp + 8 + 12 <= data_end) {
			void *dns = udp + 8;

			add(5, bpf_ntohs(*(__u16 *)dns));
			add(6, bpf_ntohs(*(__u16 *)(dns + 2)));
			add(7, bpf_ntohs(*(__u16 *)(dns + 4)));
			verdict = XDP_TX;
		}
	}
	if ((tcp = parse_l4(data, data_end, 6, 20))) {
		__u64 sa = bpf_be64_to_cpu(*(__u64 *)(tcp + 4));

		add(8, sa);
		add(9, sa ^ bpf_ntohl(*(__u32 *)(tcp + 4)));
		verdict = 10 + (bpf_ntohs(*(__u16 *)(tcp + 12)) & 0x3f);
	}
	if ((eth = parse_eth(data, data_end)) && *(__u16 *)(eth + 12) == bpf_htons(0x0806)) {
		add(10, 1);
		if (eth + 14 + 28 <= data_end) {
			void *arp = eth + 14;

			add(11, (__u64)bpf_ntohs(*(__u16 *)arp) + bpf_ntohs(*(__u16 *)(arp + 2)) +
				    *(__u8 *)(arp + 4));
			add(12, *(__u32 *)(arp + 9));
			add(13, bpf_ntohl(*(__u32 *)(arp + 14)));
			add(14, bpf_ntohl(*(__u32 *)(arp + 24)));
			verdict = 100 + bpf_ntohs(*(__u16 *)(arp + 6));
		}
	}
	ip = parse_ipv4(data, data_end);
	add(15, ip ? *(__u8 *)(ip + 8) : 1000);
	return verdict;
}

char LICENSE[] SEC("license") = "GPL";
