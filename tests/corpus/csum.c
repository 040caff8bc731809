// C twin of csum.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

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

static __u64 fold(__u64 sum)
{
	__u64 s = (sum & 0xffff) + (sum >> 16);

	return (s & 0xffff) + (s >> 16);
}

SEC("xdp")
int csum(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 buf[2];

	if (data + 34 > data_end)
		return XDP_PASS;
	if (*(__u16 *)(data + 12) != bpf_htons(0x0800))
		return XDP_PASS;

	void *ip = data + 14;
	__u64 full = bpf_csum_diff(0, 0, ip, 20, 0);

	buf[0] = *(__u32 *)(ip + 12);
	buf[1] = *(__u32 *)(ip + 16);

	__u64 addrs = bpf_csum_diff(0, 0, buf, 8, 0);
	__u64 same = bpf_csum_diff(buf, 8, buf, 8, full);
	__u64 without = bpf_csum_diff(buf, 8, 0, 0, full);

	add(0, full);
	add(1, addrs);
	add(2, same);
	add(3, without);
	add(4, fold(full));
	if (fold(full) == 0xffff)
		add(5, 1);
	return (__u32)fold(addrs + without);
}

char LICENSE[] SEC("license") = "GPL";
