// C twin of loop-bytes.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define WORDS 8

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
int loop_bytes(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 sum = 0, mixed = 0, zeros = 0, seen = 0, budget = 1000, wsum = 0;

	for (__u64 i = 0; i < 16; i++) {
		__u8 *p = data + 14 + i;

		if ((void *)(p + 1) <= data_end) {
			__u64 b = *p;

			sum += b;
			mixed ^= b << (i % 8);
			if (b == 0)
				zeros++;
			budget -= b;
			seen++;
		}
	}
	for (__u64 i = 0; i < WORDS; i++) {
		if (data + (i + 1) * 2 <= data_end)
			wsum += (__u64)*(__u16 *)(data + i * 2) * (i + 1);
	}
	add(0, sum);
	add(1, mixed);
	add(2, zeros);
	add(3, seen);
	add(4, budget);
	add(5, wsum);
	add(6, (__u64)-1);
	return (__u32)(sum + (seen << 16) + (zeros << 24));
}

char LICENSE[] SEC("license") = "GPL";
