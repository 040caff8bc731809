// C twin of big-hist.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define SLOTS 64

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 192);
} hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} ttls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 12);
} summary SEC(".maps");

static __always_inline void map_add(void *map, __u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(map, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(map, &k, &d, BPF_NOEXIST);
}

static __always_inline __u64 get(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&summary, &k);

	return v ? *v : 0;
}

static __always_inline void set(__u32 k, __u64 v)
{
	bpf_map_update_elem(&summary, &k, &v, BPF_ANY);
}

/* floor(log2(v)), 0 for 0 and 1 */
static __always_inline __u64 log2_64(__u64 v)
{
	__u64 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >= 1 << 16) { v >>= 16; r += 16; }
	if (v >= 1 << 8) { v >>= 8; r += 8; }
	if (v >= 1 << 4) { v >>= 4; r += 4; }
	if (v >= 1 << 2) { v >>= 2; r += 2; }
	if (v >= 1 << 1) { r += 1; }
	return r;
}

static __attribute__((noinline)) int record(__u64 metric, __u64 v)
{
	__u32 base = metric * 4;

	map_add(&hist, metric * SLOTS + log2_64(v), 1);
	map_add(&summary, base, 1);
	map_add(&summary, base + 1, v);
	__u64 mn = get(base + 2);

	if (mn == 0 || v < mn)
		set(base + 2, v);
	if (v > get(base + 3))
		set(base + 3, v);
	return 0;
}

SEC("xdp")
int big_hist(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;

	record(0, data_end - data);
	if (data + 54 > data_end)
		return XDP_PASS;
	if (*(__u16 *)(p + 12) == bpf_htons(0x0800)) {
		record(1, bpf_ntohs(*(__u16 *)(p + 16)));
		map_add(&ttls, p[22] >> 4, 1);
		if (p[23] == 6)
			record(2, bpf_ntohs(*(__u16 *)(p + 48)));
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
