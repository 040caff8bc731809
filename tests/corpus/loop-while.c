// C twin of loop-while.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
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
int loop_while(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 16 > data_end)
		return XDP_PASS;
	__u64 a = *(__u32 *)(data + 6), b = *(__u32 *)(data + 10), steps = 0;

	while (b != 0 && steps < 48) {
		__u64 r = a % b;

		a = b;
		b = r;
		steps++;
	}
	add(0, a);
	add(1, steps);

	__u64 n = 0;
	__u8 *p = data + 14;

	while (n < 32 && (void *)(p + 1) <= data_end && *p != 0) {
		n++;
		p++;
	}
	add(2, n);

	__u64 v = *(__u64 *)data, log = 0;

	while (v > 1 && log < 64) {
		v >>= 1;
		log++;
	}
	add(3, log);
	return (__u32)(a + (steps << 20) + (n << 8) + log);
}

char LICENSE[] SEC("license") = "GPL";
