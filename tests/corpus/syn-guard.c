// C twin of syn-guard.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define SYN_LIMIT 3

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1024);
} syn_count SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} verdicts SEC(".maps");

static __always_inline void bump(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&verdicts, &k);
	__u64 one = 1;

	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&verdicts, &k, &one, BPF_NOEXIST);
}

SEC("xdp")
int syn_guard(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 34 > data_end)
		return XDP_PASS;
	if (*(__u16 *)(data + 12) != bpf_htons(0x0800))
		return XDP_PASS;

	__u8 *ip = data + 14;
	__u64 ihl = (ip[0] & 0x0f) * 4;

	if (!(ip[9] == 6 && ihl >= 20))
		return XDP_PASS;

	__u8 *tcp = ip + ihl;

	if ((void *)(tcp + 20) > data_end)
		return XDP_PASS;

	__u64 flags = tcp[13];
	__u32 src = *(__u32 *)(ip + 12);

	if ((flags & 0x12) != 0x02) {
		bump(0);
		return XDP_PASS;
	}
	__u64 *n = bpf_map_lookup_elem(&syn_count, &src);
	if (n) {
		*n = *n + 1;
		if (*n > SYN_LIMIT) {
			bump(1);
			return XDP_DROP;
		}
	} else {
		__u64 one = 1;

		bpf_map_update_elem(&syn_count, &src, &one, BPF_NOEXIST);
	}
	bump(2);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
