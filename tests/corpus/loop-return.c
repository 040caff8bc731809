// C twin of loop-return.lisp
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
int loop_return(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 acc = 0, sum = 0;

	for (__u64 i = 0; i < 8; i++)
		for (__u64 j = 0; j < 8; j++)
			acc = acc * 3 + i * 8 + j;
	add(0, acc);
	if (data + 64 <= data_end) {
		for (__u64 i = 0; i < 64; i++)
			sum += (__u64)*(__u8 *)(data + i) * (i + 1);
		add(1, sum);
	}
	for (__u64 i = 0; i < 24; i++) {
		if (data + i + 1 > data_end) {
			add(2, 1);
			return 100 + i;
		}
		if (*(__u8 *)(data + i) == 0x88) {
			add(3, i);
			return 200 + i;
		}
	}
	__u64 n = 0;

	while (n < 40) {
		if (data + n + 1 > data_end)
			return 300 + n;
		if (*(__u8 *)(data + n) == 0x45) {
			add(4, n);
			return 400 + n;
		}
		n++;
	}
	add(5, 1);
	return n;
}

char LICENSE[] SEC("license") = "GPL";
