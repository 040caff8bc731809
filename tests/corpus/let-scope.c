// C twin of let-scope.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 12);
} results SEC(".maps");

static __always_inline void set(__u32 k, __u64 v)
{
	bpf_map_update_elem(&results, &k, &v, BPF_ANY);
}

SEC("xdp")
int let_scope(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;

	if (data + 16 > data_end)
		return XDP_PASS;
	__u64 a = p[0], b = p[13];
	{
		__u64 a2 = b, b2 = a;	/* parallel binding: a swap */

		set(0, a2 * 1000 + b2);
	}
	{
		__u64 a2 = a + 1;
		__u64 b2 = a2 * 2;

		set(1, a2 * 1000 + b2);
	}
	set(2, 102 + b);
	set(3, a * 1000 + b);
	a = a + 7;
	{
		__u64 c = a * 3;

		set(4, c * 1000 + a);
	}
	{
		__u64 l1 = p[1];
		__u64 l2 = l1 + p[2];
		__u64 l3 = l2 * 3;
		__u64 l4 = l3 ^ l1;
		__u64 l5 = l4 + l2 + b;
		__u64 l6 = l5 - l1;
		__u64 l7 = l6 * l6;
		__u64 l8 = l7 + l3;
		__u64 l9 = l8 & 0xffff;
		__u64 l10 = l9 + l4;
		__u64 l11 = l10 - l2;
		__u64 l12 = l11 + l1 + l2 + l3 + l4 + l5 + l6 + l7 + l8 + l9 + l10 + a;

		b = b + 1;
		set(5, l12);
		set(6, l6 + l7);
	}
	set(7, b);
	set(8, a + b);
	return (__u32)(a + b * 256);
}

char LICENSE[] SEC("license") = "GPL";
