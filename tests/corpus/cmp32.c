// C twin of cmp32.lisp: the i32s sign-extended to 64 bits and compared there
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 32);
} hits SEC(".maps");

static __always_inline void count_if(__u32 n, int test)
{
	__u64 *v;

	if (!test)
		return;
	v = bpf_map_lookup_elem(&hits, &n);
	if (v)
		__sync_fetch_and_add(v, 1);
}

SEC("xdp")
int cmp32(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;

	if (data + 24 > end)
		return XDP_PASS;
	__s64 x = (__s32)bpf_ntohl(*(__u32 *)(data + 16));
	__s64 y = (__s32)bpf_ntohl(*(__u32 *)(data + 20));
	__u64 ux = x, uy = y;

	count_if(0, x < 0);
	count_if(1, x <= -1);
	count_if(2, x > 100);
	count_if(3, x >= 2147483647);
	count_if(4, x < -2147483647);
	count_if(5, ux == (__u64)-1);
	count_if(6, ux != 0);
	count_if(7, x == -2147483648LL);
	count_if(8, ux < 100);
	count_if(9, ux >= 100);
	count_if(10, ux > 2147483647);
	count_if(11, ux <= 0);
	count_if(12, x == 2147483647);
	count_if(13, x < y);
	count_if(14, x >= y);
	count_if(15, ux < uy);
	count_if(16, uy >= ux);
	count_if(17, ux == uy);
	count_if(18, y > -16);
	count_if(19, uy < 4294967295ULL);
	return x < y ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
