// C twin of icmp-reflect.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

static __always_inline __u64 csum_fold(__u64 sum)
{
	__u64 s = (sum & 0xffff) + (sum >> 16);

	return (s & 0xffff) + (s >> 16);
}

SEC("xdp")
int icmp_reflect(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 42 > data_end)
		return XDP_PASS;

	__u8 *ip = data + 14;

	if (!(*(__u16 *)(data + 12) == bpf_htons(0x0800) && ip[0] == 0x45 && ip[9] == 1 &&
	      ip[20] == 8))
		return XDP_PASS;

	__u8 *icmp = ip + 20;
	__u32 d0 = *(__u32 *)data;
	__u16 d1 = *(__u16 *)(data + 4);

	*(__u32 *)data = *(__u32 *)(data + 6);
	*(__u16 *)(data + 4) = *(__u16 *)(data + 10);
	*(__u32 *)(data + 6) = d0;
	*(__u16 *)(data + 10) = d1;

	__u32 src = *(__u32 *)(ip + 12);

	*(__u32 *)(ip + 12) = *(__u32 *)(ip + 16);
	*(__u32 *)(ip + 16) = src;

	__u64 old_word = *(__u16 *)icmp;
	__u64 old_sum = *(__u16 *)(icmp + 2);

	icmp[0] = 0;
	__u64 new_word = *(__u16 *)icmp;

	*(__u16 *)(icmp + 2) = ~csum_fold((~old_sum & 0xffff) + (~old_word & 0xffff) + new_word) & 0xffff;

	ip[8] = 64;
	*(__u16 *)(ip + 10) = 0;

	__u64 sum = 0;

	for (int i = 0; i < 10; i++)
		sum += *(__u16 *)(ip + i * 2);
	*(__u16 *)(ip + 10) = ~csum_fold(sum) & 0xffff;
	add(0, 1);
	add(1, sum);
	return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
