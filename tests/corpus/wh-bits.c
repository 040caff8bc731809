// C twin of wh-bits.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__uint(value_size, 16);
	__uint(max_entries, 1);
} cells SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 32);
} byport SEC(".maps");

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

/* floor(log2 x) over 64 bits, 0 for 0 */
static __always_inline __u64 log2_64(__u64 x)
{
	__u64 r = 0;

	for (int sh = 32; sh >= 1; sh /= 2)
		if (x >> sh) {
			x >>= sh;
			r += sh;
		}
	return r;
}

SEC("xdp")
int bt_bits(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 54 > data_end)
		return XDP_PASS;

	__u64 w = *(__u64 *)data;
	__u64 seq = bpf_ntohl(*(__u32 *)(data + 38));
	__u64 ttl = *(__u8 *)(data + 22);
	__u64 sum = 0;

	for (__u64 k = 0; k < 64; k++)
		sum += log2_64(1ULL << k) * 100 + log2_64((1ULL << k) - 1);
	set(0, sum + 0 + 1000 * 0 + 10000 * 32 + 100000 * 63);
	add(1, log2_64(w) * 10000 + log2_64(seq) * 100 + log2_64(ttl));
	add(2, log2_64(seq - 1));
	add(3, w >> 60);
	add(4, (seq << 4) + (seq >> 3) + seq);
	add(5, (w >> 63) + (ttl << 56) + (0xf0 >> 4) + (3ULL << 62));

	__u32 z = 0;
	__u8 *p = bpf_map_lookup_elem(&cells, &z);
	if (p) {
		__sync_fetch_and_add((__u64 *)p, ttl);
		__sync_fetch_and_add((__u32 *)(p + 8), 0xffffffff);
		__sync_fetch_and_add((__u32 *)(p + 12), (__u32)seq);
		__sync_fetch_and_add((__u32 *)p, (__u32)ttl);
	}

	__u64 s[2] = {};
	__sync_fetch_and_add(&s[0], seq);
	__sync_fetch_and_add((__u32 *)&s[1], (__u32)ttl);
	__sync_fetch_and_add((__u32 *)&s[1], (__u32)ttl);
	__sync_fetch_and_add((__u32 *)&s[1] + 1, 0xffffffff);
	add(6, s[0] + ((__u32 *)&s[1])[0] + ((__u32 *)&s[1])[1]);

	__u64 port = bpf_ntohs(*(__u16 *)(data + 36));
	__u64 val = ttl + seq * 1000;
	bpf_map_update_elem(&byport, &port, &val, 0);
	__u64 *q = bpf_map_lookup_elem(&byport, &port);
	if (q)
		add(7, *q);
	add(8, (__u32)port);
	return log2_64(seq) + (ttl >> 2);
}

char LICENSE[] SEC("license") = "GPL";
