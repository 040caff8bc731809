/* obj-clang-rejected.bpf.c — a clang-built program the verifier refuses: it reads 8 bytes past
 * its map value. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} values SEC(".maps");

SEC("xdp")
int past_value(struct xdp_md *ctx)
{
	__u32 k = 0;
	volatile __u64 *v = bpf_map_lookup_elem(&values, &k);
	if (!v)
		return XDP_PASS;
	return v[1] ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
