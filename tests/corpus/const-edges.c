// C twin of const-edges.lisp: the BPF meaning spelled out (x / 0 == 0, x % 0 == x, shift
// amounts modulo 64), since C leaves all of these undefined.
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
int const_edges(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 8 > data_end)
		return XDP_PASS;
	__u64 x = *(__u64 *)data;

	set(0, 0);
	set(1, x);
	set(2, 0);
	set(3, 7);
	set(4, x << (64 & 63));
	set(5, x >> (65 & 63));
	set(6, (__u64)((__s64)x >> (127 & 63)));
	set(7, 1ULL << (64 & 63));
	set(8, 0x8000000000000000ULL >> (64 & 63));
	set(9, (__u64)((__s64)0x8000000000000000ULL >> (127 & 63)));
	return (__u32)(0 + x);
}

char LICENSE[] SEC("license") = "GPL";
