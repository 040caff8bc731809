// C twin of call-in-expr.lisp. C leaves the order of operand evaluation unspecified, so the
// twin sequences calls with side effects explicitly, left to right as kiln evaluates them.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} table SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

static __always_inline __u64 tget(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&table, &k);

	return v ? *v : 0;
}

static __always_inline void tset(__u32 k, __u64 v)
{
	bpf_map_update_elem(&table, &k, &v, BPF_ANY);
}

static __u64 fold16(__u64 x)
{
	return (x & 0xffff) + (x >> 16);
}

static __u64 lin3(__u64 a, __u64 b, __u64 c)
{
	return a * 100 + b * 10 + c;
}

static __u64 tick(void)
{
	__u64 n = tget(7) + 1;

	tset(7, n);
	return n;
}

SEC("xdp")
int call_in_expr(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 24 > data_end)
		return XDP_PASS;
	__u64 a = *(__u32 *)data, b = *(__u32 *)(data + 4);
	__u64 c = *(__u32 *)(data + 8), d = *(__u32 *)(data + 12);

	tset(1, a & 0xff);
	tset(2, b & 0xff);
	tset(3, c & 0xff);
	add(0, a + tget(1) + b + tget(2) + c + tget(3) * d + tget(1));
	add(1, a * 3 - fold16(b + tget(2)) - fold16(c * fold16(d)));
	add(2, lin3(fold16(a), fold16(b), fold16(lin3(c, d, fold16(a)))));
	{
		__u64 t1 = tick(), t2 = tick(), t3 = tick();

		add(3, lin3(t1, t2, t3));
	}
	{
		__u64 t1 = tick(), t2 = tick(), t3 = tick();

		add(4, t1 * 1000 + t2 * 100 + t3);
	}
	tset(4, tget(1) + tget(2));
	add(5, tget(4));
	if (tget(1) + a > tget(2) + b)
		add(6, 1);
	add(7, tget(3) == (c & 0xff) ? fold16(d) : fold16(c));
	add(8, fold16(tget(1)) ^ lin3(a, tget(2), fold16(tget(3))));

	__u64 t = tick();

	return (__u32)(t + a * fold16(b));
}

char LICENSE[] SEC("license") = "GPL";
