// C twin of casts.lisp
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
int casts(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 9 > data_end)
		return XDP_PASS;
	__u64 x = *(__u64 *)data;
	__u64 w = *(__u32 *)data;

	add(0, (__u8)x);
	add(1, (__u16)x);
	add(2, (__u32)x);
	add(3, x);
	add(4, (__u64)(__s64)(__s8)x);
	add(5, (__u64)(__s64)(__s16)x);
	add(6, (__u64)(__s64)(__s32)x);
	add(7, (__u64)(__s64)x);
	add(8, (__u8)(x + 255));
	add(9, (__u64)((__s64)(__s32)x >> 4));
	add(10, (__s16)x < 0 ? 1 : 0);
	add(11, (__u16)((__u64)(__s64)(__s8)x * 3));
	add(12, w * w);
	add(13, (__u32)(w * w));
	add(14, (__u64)(__s64)(__s32)(__u16)(-x));
	return (__u32)((__u8)x + (__u64)(__s64)(__s8)*(__u8 *)(data + 8));
}

char LICENSE[] SEC("license") = "GPL";
