// C twin of lpm-route.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct lpm_key {
	__u32 prefixlen;
	__u32 addr;
};

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(key_size, 8);
	__uint(value_size, 8);
	__uint(max_entries, 16);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} routes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u64);
	__uint(max_entries, 16);
} hits SEC(".maps");

static __always_inline void hit(__u64 k)
{
	__u64 *v = bpf_map_lookup_elem(&hits, &k);
	__u64 one = 1;

	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&hits, &k, &one, BPF_NOEXIST);
}

static __always_inline __u64 route_of(struct lpm_key *k)
{
	__u64 *v = bpf_map_lookup_elem(&routes, k);

	return v ? *v : 0;
}

SEC("xdp")
int lpm_route(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct lpm_key k = {};
	__u64 v;

	if (data + 34 > data_end)
		return XDP_PASS;
	if (bpf_ntohs(*(__u16 *)(data + 12)) != 0x0800)
		return XDP_PASS;
	k.prefixlen = 8;
	k.addr = bpf_htonl(0x0a000000);
	v = 1;
	bpf_map_update_elem(&routes, &k, &v, BPF_ANY);
	k.prefixlen = 24;
	v = 2;
	bpf_map_update_elem(&routes, &k, &v, BPF_ANY);
	k.prefixlen = 32;
	k.addr = bpf_htonl(0x0a000035);
	v = 3;
	bpf_map_update_elem(&routes, &k, &v, BPF_ANY);

	__u8 *ip = data + 14;

	k.addr = *(__u32 *)(ip + 16);
	__u64 route = route_of(&k);

	hit(route);
	k.addr = *(__u32 *)(ip + 12);
	hit(100 + route_of(&k));
	k.prefixlen = 16;
	hit(200 + route_of(&k));
	return route;
}

char LICENSE[] SEC("license") = "GPL";
