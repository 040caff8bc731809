// C twin of big-conntrack.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

enum { ST_SYN_SENT = 1, ST_SYN_RECV, ST_ESTABLISHED, ST_CLOSING };

struct conn_key {
	__u32 lo_addr, hi_addr;
	__u16 lo_port, hi_port;
	__u32 proto;
};

struct conn {
	__u32 state, flags;
	__u64 packets[2], bytes[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct conn_key);
	__type(value, struct conn);
	__uint(max_entries, 512);
} conns SEC(".maps");

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
int big_conntrack(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;

	if (data + 54 > data_end)
		return XDP_PASS;
	if (!(*(__u16 *)(p + 12) == bpf_htons(0x0800) && p[14] == 0x45 && p[23] == 6)) {
		add(4, 1);
		return XDP_PASS;
	}
	__u32 saddr = bpf_ntohl(*(__u32 *)(p + 26)), daddr = bpf_ntohl(*(__u32 *)(p + 30));
	__u16 sport = bpf_ntohs(*(__u16 *)(p + 34)), dport = bpf_ntohs(*(__u16 *)(p + 36));
	__u8 flags = p[47];
	__u64 len = data_end - data;
	struct conn_key k = {};
	__u32 dir = 0;

	if (saddr < daddr || (saddr == daddr && sport < dport)) {
		k.lo_addr = saddr, k.hi_addr = daddr, k.lo_port = sport, k.hi_port = dport;
	} else {
		k.lo_addr = daddr, k.hi_addr = saddr, k.lo_port = dport, k.hi_port = sport;
		dir = 1;
	}
	k.proto = 6;
	struct conn *c = bpf_map_lookup_elem(&conns, &k);

	if (!c) {
		if ((flags & 0x12) != 0x02) {
			add(3, 1);
			return XDP_DROP;
		}
		struct conn n = { .state = ST_SYN_SENT };

		bpf_map_update_elem(&conns, &k, &n, BPF_NOEXIST);
		add(0, 1);
		c = bpf_map_lookup_elem(&conns, &k);
		if (!c)
			return XDP_PASS;
	}
	if (flags & 0x04) {
		bpf_map_delete_elem(&conns, &k);
		add(2, 1);
		return XDP_PASS;
	}
	c->packets[dir] += 1;
	c->bytes[dir] += len;
	c->flags |= flags;
	__u32 old = c->state, new = c->state;

	if (flags & 0x01) {
		new = ST_CLOSING;
	} else if (old == ST_SYN_SENT && (flags & 0x12) == 0x12 && dir == 1) {
		new = ST_SYN_RECV;
	} else if (old == ST_SYN_RECV && (flags & 0x10) == 0x10 && dir == 0) {
		new = ST_ESTABLISHED;
		add(1, 1);
	}
	if (new != old) {
		c->state = new;
		add(5, 1);
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
