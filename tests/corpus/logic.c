// C twin of logic.lisp
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
int logic(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 14 > data_end)
		return XDP_PASS;
	__u64 x = *(__u32 *)data, y = *(__u32 *)(data + 4), z = *(__u16 *)(data + 12);

	add(0, x & y);
	add(1, x | y | z);
	add(2, x ^ y);
	add(3, ~x);
	add(4, x && y);
	add(5, x == 0 || y > 5);
	add(6, !z);
	add(7, x > 3 && y < 1000000 && z);
	add(8, 0 || z);
	add(9, ~z ^ (x & 0xff00));
	if (z > 2048 || (add(10, 1), x < 100))
		add(11, 1);
	if (z != 0 && (add(12, 1), x > y))
		add(13, 1);
	if (!(!x || (y && !(z & 1))))
		add(14, 1);
	return (__u32)(((__u64)(x && z) << 1) | (__u64)(y || 0) | ((__u64)!y << 2));
}

char LICENSE[] SEC("license") = "GPL";
