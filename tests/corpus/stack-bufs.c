// C twin of stack-bufs.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct pair {
	__u32 lo;
	__u32 hi;
	__u16 tag;
};

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
	__uint(max_entries, 4);
} saved SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int stack_bufs(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 a[2] = {}, b[2] = {}, c[2] = {}, d[2] = {};
	struct pair p;

	if (data + 40 > data_end)
		return XDP_PASS;
	__builtin_memset(&p, 0, sizeof(p));

	__u64 v0 = *(__u64 *)data, v1 = *(__u64 *)(data + 8), v2 = *(__u64 *)(data + 16);
	__u64 v3 = *(__u64 *)(data + 24), v4 = *(__u64 *)(data + 32);
	__u64 v5 = *(__u32 *)(data + 2), v6 = *(__u32 *)(data + 6), v7 = *(__u16 *)(data + 12);
	__u64 v8 = *(__u8 *)(data + 23), v9 = *(__u64 *)(data + 30);

	a[0] = v0;
	b[0] = v1;
	b[1] = v2;
	((__u32 *)c)[1] = v5;
	d[1] = v3;
	p.lo = v6;
	p.hi = v8;
	p.tag = v7;
	{
		__u32 k = 0;
		__u64 v = v4 + v9;

		bpf_map_update_elem(&saved, &k, &v, BPF_ANY);
	}
	__u64 s1 = bpf_csum_diff(0, 0, (void *)a, 16, 0);
	__u64 s2 = bpf_csum_diff(0, 0, (void *)b, 16, 0);
	__u64 s3 = bpf_csum_diff(0, 0, (void *)c, 16, 0);
	__u64 s4 = bpf_csum_diff(0, 0, (void *)d, 16, 0);

	add(0, s1);
	add(1, s2);
	add(2, s3);
	add(3, s4);
	add(4, a[0] + a[1]);
	add(5, b[0] ^ b[1]);
	add(6, (__u64)((__u32 *)c)[0] + ((__u32 *)c)[1] + c[1]);
	add(7, d[0] + d[1]);
	add(8, (__u64)p.lo + (__u64)p.hi * 3 + (__u64)p.tag * 5);
	add(9, *(__u16 *)((char *)&p + 10));
	{
		__u32 k = 0;
		__u64 *m = bpf_map_lookup_elem(&saved, &k);

		if (m)
			d[0] = *m;
	}
	add(10, d[0]);
	add(11, v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 +
		bpf_csum_diff(0, 0, (void *)d, 16, 0));
	return (__u32)(s1 + s2 + s3 + s4);
}

char LICENSE[] SEC("license") = "GPL";
