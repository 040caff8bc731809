// C twin of spill.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} results SEC(".maps");

static __always_inline __u64 get(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	return v ? *v : 0;
}

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

static __noinline __u64 weigh5(__u64 a, __u64 b, __u64 c, __u64 d, __u64 e)
{
	return a + b * 3 + c * 5 + d * 7 + e * 11;
}

#define L(off) (*(__u64 *)(data + (off)))

SEC("xdp")
int spill(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 40 > data_end)
		return XDP_PASS;
	__u64 v0 = L(0), v1 = L(2), v2 = L(4), v3 = L(6), v4 = L(8), v5 = L(10), v6 = L(12);
	__u64 v7 = L(14), v8 = L(16), v9 = L(18), v10 = L(20), v11 = L(22), v12 = L(24);
	__u64 v13 = L(26), v14 = L(28), v15 = L(30);
	__u64 old = get(0);
	__u64 now = bpf_ktime_get_ns();

	set(7, now > 0 ? 1 : 0);
	__u64 sum1 = v0 * 1 + v1 * 2 + v2 * 3 + v3 * 4 + v4 * 5 + v5 * 6 + v6 * 7 + v7 * 8 +
		     v8 * 9 + v9 * 10 + v10 * 11 + v11 * 12 + v12 * 13 + v13 * 14 + v14 * 15 +
		     v15 * 16;
	set(0, old + sum1);
	__u64 w0 = v0 ^ v15, w1 = v1 ^ v14, w2 = v2 ^ v13, w3 = v3 ^ v12;
	__u64 w4 = v4 ^ v11, w5 = v5 ^ v10, w6 = v6 ^ v9, w7 = v7 ^ v8;
	__u64 prev = get(1);

	set(1, prev + w0 * 17 + w1 * 19 + w2 * 23 + w3 * 29 + w4 * 31 + w5 * 37 + w6 * 41 +
		       w7 * 43);
	add(2, weigh5(v0, v1, v2, v3, v4) + weigh5(v5, v6, v7, v8, v9) +
	       weigh5(v10, v11, v12, v13, v14) + weigh5(v15, w0, w1, w2, w3) +
	       weigh5(w4, w5, w6, w7, sum1));
	add(3, (v0 + v2 + v4 + v6 + v8 + v10 + v12 + v14) -
	       (v1 + v3 + v5 + v7 + v9 + v11 + v13 + v15));
	return (__u32)(sum1 ^ (w0 + w1 + w2 + w3 + w4 + w5 + w6 + w7));
}

char LICENSE[] SEC("license") = "GPL";
