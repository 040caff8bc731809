// C twin of wh-smaps.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct tuple {
	__u32 saddr, daddr;
	__u16 sport, dport;
};
struct flowst {
	__u64 pkts, bytes;
	__u8 last_ttl, flags;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, 12);
	__type(value, struct flowst);
	__uint(max_entries, 64);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, 12);
	__uint(value_size, 8);
	__uint(max_entries, 64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 64);
} ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 12);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
}

static __always_inline void set(__u32 k, __u64 d)
{
	bpf_map_update_elem(&results, &k, &d, 0);
}

/* incf (getmap counts key) d: add in place, or insert d when absent */
static __always_inline void count(void *key, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&counts, key);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&counts, key, &d, BPF_NOEXIST);
}

SEC("xdp")
int sm_maps(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 54 > data_end)
		return XDP_PASS;

	struct tuple k = {};
	__u64 len = data_end - data;
	__u8 ttl = *(__u8 *)(data + 22);
	__u8 proto = *(__u8 *)(data + 23);
	__u32 dport = bpf_ntohs(*(__u16 *)(data + 36));
	struct flowst *st;

	k.saddr = *(__u32 *)(data + 26);
	k.daddr = *(__u32 *)(data + 30);
	k.sport = bpf_ntohs(*(__u16 *)(data + 34));
	k.dport = dport;
	st = bpf_map_lookup_elem(&flows, &k);
	if (st) {
		st->pkts++;
		st->bytes += len;
		st->flags |= *(__u8 *)(data + 47);
	} else {
		struct flowst nv;

		__builtin_memset(&nv, 0, sizeof(nv));
		nv.pkts = 1;
		nv.bytes = len;
		nv.last_ttl = ttl;
		add(0, 10 + bpf_map_update_elem(&flows, &k, &nv, BPF_NOEXIST));
	}
	{
		struct tuple other = {};

		other.sport = 1;
		if (!bpf_map_lookup_elem(&flows, &other))
			add(1, 1);
	}
	struct flowst *p = bpf_map_lookup_elem(&flows, &k);
	if (p)
		add(2, p->pkts + p->bytes + p->last_ttl + p->flags);
	count(&k, ttl);
	count(&k, 1);
	{
		__u64 *c = bpf_map_lookup_elem(&counts, &k);

		add(3, c ? *c : 0);
	}
	{
		__u8 zero[12] = {};

		count(zero, 3);
	}
	set(4, bpf_map_update_elem(&ports, &dport, &len, BPF_NOEXIST));
	{
		__u64 v = len + ttl;

		add(5, 1 + bpf_map_update_elem(&ports, &dport, &v, BPF_ANY));
	}
	{
		__u32 absent = 12345;

		set(6, bpf_map_delete_elem(&ports, &absent));
	}
	if (proto == 17) {
		add(7, 100 + bpf_map_delete_elem(&flows, &k));
		bpf_map_delete_elem(&counts, &k);
	}
	if (dport == 9999)
		add(8, 1000 + bpf_map_delete_elem(&ports, &dport));
	st = bpf_map_lookup_elem(&flows, &k);
	if (st)
		return st->pkts + 10 * st->last_ttl;
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
