// C twin of defun-calls.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

static __u64 fold16(__u64 x)
{
	x = (x & 0xffff) + (x >> 16);
	x = (x & 0xffff) + (x >> 16);
	return x;
}

static __u64 clamp(__u64 x, __u64 lo, __u64 hi)
{
	if (x < lo)
		return lo;
	if (x > hi)
		return hi;
	return x;
}

static __u64 sub4(__u64 a, __u64 b, __u64 c, __u64 d)
{
	return a - b - c - d;
}

static __u64 mix5(__u64 a, __u64 b, __u64 c, __u64 d, __u64 e)
{
	return a * 31 + b * 17 + c * 7 + (d ^ e);
}

static __u64 mix_fold(__u64 a, __u64 b, __u64 c, __u64 d, __u64 e)
{
	return fold16(mix5(a, b, c, d, e));
}

static __u64 popcount8(__u64 x)
{
	__u64 n = 0;

	for (int i = 0; i < 8; i++)
		if ((x >> i) & 1)
			n++;
	return n;
}

static int is_odd(__u64 x)
{
	return (x & 1) == 1;
}

SEC("xdp")
int defun_calls(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;

	if (data + 20 > data_end)
		return XDP_PASS;
	__u64 a = *(__u32 *)data, b = *(__u32 *)(data + 4), c = *(__u32 *)(data + 8);
	__u64 d = *(__u16 *)(data + 12), e = *(__u16 *)(data + 14);

	add(0, fold16(a + b + c));
	add(1, clamp(d, 100, 2048));
	add(2, sub4(a, b, c, d));
	add(3, sub4(d, c, b, a));
	add(4, mix5(a, b, c, d, e));
	add(5, mix_fold(e, d, c, b, a));
	add(6 + (popcount8(p[19]) & 3), 1);
	if (is_odd(p[18]))
		add(10, 1);

	__u64 total = 0;

	for (int i = 0; i < 4; i++)
		total += clamp(p[i + 16], 10, 200);
	add(11, total);
	return (__u32)mix_fold(a, b, c, d, e);
}

char LICENSE[] SEC("license") = "GPL";
