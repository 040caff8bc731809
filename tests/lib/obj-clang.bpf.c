/* obj-clang.bpf.c — test_object's libbpf-style object, built by clang in the test: a map, a
 * .rodata constant (an internal map named after the object) and an XDP and a tc program. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} clang_counts SEC(".maps");

const volatile __u32 verdict = XDP_PASS;

SEC("xdp")
int clang_xdp(struct xdp_md *ctx)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&clang_counts, &k);
	if (v)
		__sync_fetch_and_add(v, 1);
	return verdict;
}

SEC("tc")
int clang_tc(struct __sk_buff *skb)
{
	skb->mark += 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
