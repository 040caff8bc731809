// C twin of ipv6-parse.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 32);
} by_next SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} results SEC(".maps");

static __always_inline void map_add(void *map, __u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(map, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(map, &k, &d, BPF_NOEXIST);
}

static __always_inline int is_ext(__u64 nh)
{
	return nh == 0 || nh == 43 || nh == 60;
}

SEC("xdp")
int ipv6_parse(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 54 > data_end)
		return XDP_PASS;
	if (*(__u16 *)(data + 12) != bpf_htons(0x86dd))
		return XDP_PASS;

	__u8 *ip = data + 14;
	__u64 s0 = *(__u64 *)(ip + 8), s1 = *(__u64 *)(ip + 16);
	__u64 d0 = *(__u64 *)(ip + 24), d1 = *(__u64 *)(ip + 32);
	__u64 hash = s0 ^ (s1 << 1) ^ (d0 >> 3) ^ (d1 * 5);
	__u64 nh = ip[6], hops = 0;
	__u8 *p = ip + 40;

	map_add(&results, 0, hash);
	map_add(&results, 1, bpf_ntohs(*(__u16 *)(ip + 4)));
	map_add(&results, 2, ip[7]);
	for (int i = 0; i < 4; i++) {
		if (is_ext(nh) && (void *)(p + 8) <= data_end) {
			nh = p[0];
			p = p + (p[1] + 1) * 8;
			hops++;
		}
	}
	map_add(&by_next, nh, 1);
	map_add(&results, 3, hops);
	if ((nh == 6 || nh == 17) && (void *)(p + 4) <= data_end)
		map_add(&results, 4, (__u64)bpf_ntohs(*(__u16 *)p) * 65536 + bpf_ntohs(*(__u16 *)(p + 2)));
	return ip[7] == 1 ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
