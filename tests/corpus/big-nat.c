// C twin of big-nat.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define PUBLIC_IP  0xc0a86401u   /* 192.168.100.1 */
#define PORT_BASE  20000
#define PORT_RANGE 10000

struct nat_key {
	__u32 saddr, daddr;
	__u16 sport, dport;
	__u32 proto;
};

struct nat_orig {
	__u32 addr;
	__u16 port, pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct nat_key);
	__type(value, __u32);
	__uint(max_entries, 1024);
} outbound SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct nat_key);
	__type(value, struct nat_orig);
	__uint(max_entries, 1024);
} inbound SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 6);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

/* RFC 1624: the checksum (host order) after one 16-bit word changes from old to new */
static __always_inline __u64 csum_replace(__u64 hc, __u64 old, __u64 new)
{
	__u64 s = (~hc & 0xffff) + (~old & 0xffff) + new;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return ~s & 0xffff;
}

/* the checksum after a 32-bit address (host order) changes */
static __always_inline __u64 csum_replace32(__u64 hc, __u64 old, __u64 new)
{
	return csum_replace(csum_replace(hc, old >> 16, new >> 16), old & 0xffff, new & 0xffff);
}

SEC("xdp")
int big_nat(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *d = data;

	if (data + 42 > data_end)
		return XDP_PASS;
	if (!(*(__u16 *)(d + 12) == bpf_htons(0x0800) && d[14] == 0x45)) {
		add(5, 1);
		return XDP_PASS;
	}
	__u8 *ip = d + 14, *l4 = ip + 20;
	__u8 proto = ip[9];
	__u64 coff = proto == 6 ? 16 : 6;
	__u64 saddr = bpf_ntohl(*(__u32 *)(ip + 12)), daddr = bpf_ntohl(*(__u32 *)(ip + 16));
	__u64 sport = bpf_ntohs(*(__u16 *)l4), dport = bpf_ntohs(*(__u16 *)(l4 + 2));
	struct nat_key k = {};

	if (proto != 6 && proto != 17) {
		add(5, 1);
		return XDP_PASS;
	}
	if ((void *)(l4 + 20) > data_end)
		return XDP_PASS;
	if ((saddr & 0xff000000) == 0x0a000000) {
		k.saddr = saddr, k.daddr = daddr, k.sport = sport, k.dport = dport, k.proto = proto;
		__u32 *pp = bpf_map_lookup_elem(&outbound, &k);
		__u64 port = pp ? *pp : 0;

		if (port == 0) {
			__u32 zero = 0;
			__u64 *np = bpf_map_lookup_elem(&results, &zero);
			__u64 n = np ? *np : 0;
			struct nat_key back = {};
			struct nat_orig orig = {};
			__u32 p32;

			port = PORT_BASE + n % PORT_RANGE;
			add(0, 1);
			p32 = port;
			bpf_map_update_elem(&outbound, &k, &p32, BPF_NOEXIST);
			back.saddr = daddr, back.daddr = PUBLIC_IP, back.sport = dport, back.dport = port;
			back.proto = proto;
			orig.addr = saddr, orig.port = sport;
			bpf_map_update_elem(&inbound, &back, &orig, BPF_ANY);
			add(1, 1);
		}
		__u64 ipc = bpf_ntohs(*(__u16 *)(ip + 10)), l4c = bpf_ntohs(*(__u16 *)(l4 + coff));

		*(__u16 *)(ip + 10) = bpf_htons(csum_replace32(ipc, saddr, PUBLIC_IP));
		*(__u32 *)(ip + 12) = bpf_htonl(PUBLIC_IP);
		if (!(proto == 17 && l4c == 0))
			*(__u16 *)(l4 + coff) =
				bpf_htons(csum_replace(csum_replace32(l4c, saddr, PUBLIC_IP), sport, port));
		*(__u16 *)l4 = bpf_htons(port);
		add(2, 1);
		return XDP_TX;
	}
	if (daddr == PUBLIC_IP) {
		k.saddr = saddr, k.daddr = daddr, k.sport = sport, k.dport = dport, k.proto = proto;
		struct nat_orig *o = bpf_map_lookup_elem(&inbound, &k);

		if (!o) {
			add(4, 1);
			return XDP_DROP;
		}
		__u64 addr = o->addr, port = o->port;
		__u64 ipc = bpf_ntohs(*(__u16 *)(ip + 10)), l4c = bpf_ntohs(*(__u16 *)(l4 + coff));

		*(__u16 *)(ip + 10) = bpf_htons(csum_replace32(ipc, daddr, addr));
		*(__u32 *)(ip + 16) = bpf_htonl(addr);
		if (!(proto == 17 && l4c == 0))
			*(__u16 *)(l4 + coff) =
				bpf_htons(csum_replace(csum_replace32(l4c, daddr, addr), dport, port));
		*(__u16 *)(l4 + 2) = bpf_htons(port);
		add(3, 1);
		return XDP_TX;
	}
	add(5, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
