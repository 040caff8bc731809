// C twin of form-values.lisp
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

SEC("xdp")
int form_values(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 16 > data_end)
		return XDP_PASS;
	__u64 a = *(__u32 *)data, b = *(__u32 *)(data + 4), c = *(__u8 *)(data + 13);

	add(0, a < b);
	add(1, (__u64)(c == 0) + (__u64)(c != 0) * 2 + (__u64)((__s64)a < (__s64)b) * 4 +
	       (__u64)(a >= b) * 8);
	add(2, c > 100 ? c + 1000 : 0);
	add(3, !(c > 100) ? c + 2000 : 0);
	add(4, a > b ? a : 0);
	add(5, c * 2 + (1 + c) + c);
	add(6, (c > 200 ? 3 : c > 100 ? 2 : 1) * c);
	add(7, (__u64)(a && b && c) + (__u64)(a == 0 || b == 0) + (__u64)!c);
	add(8, (__u64)(a < b) ^ (__u64)(a > b));
	return (__u32)((__u64)(c < 50) + (__u64)(a == b) * 2 + (__u64)(b > a) * 4);
}

char LICENSE[] SEC("license") = "GPL";
