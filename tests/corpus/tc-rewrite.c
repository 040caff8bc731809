// C twin of tc-rewrite.lisp
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
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

SEC("tc")
int tc_rewrite(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	__u64 buf = 0;

	if (data + 38 > data_end)
		return TC_ACT_OK;
	if (*(__u16 *)(data + 12) != bpf_htons(0x0800))
		return TC_ACT_OK;

	__u64 old = *(__u16 *)(data + 22);
	__u64 ttl = *(__u8 *)(data + 22);
	__u64 ports = *(__u32 *)(data + 34);

	if (ttl == 0)
		return TC_ACT_SHOT;

	__u64 new = old - 1;

	*(__u16 *)&buf = new;
	add(0, bpf_skb_store_bytes(skb, 22, &buf, 2, 0));
	add(1, bpf_l3_csum_replace(skb, 24, old, new, 2));
	*(__u32 *)&buf = (ports >> 16) | ((ports << 16) & 0xffff0000);
	add(2, bpf_skb_store_bytes(skb, 34, &buf, 4, 0));

	data = (void *)(long)skb->data;
	data_end = (void *)(long)skb->data_end;
	if (data + 26 > data_end)
		return TC_ACT_SHOT;

	__u32 d0 = *(__u32 *)data;
	__u16 d1 = *(__u16 *)(data + 4);

	*(__u32 *)data = *(__u32 *)(data + 6);
	*(__u16 *)(data + 4) = *(__u16 *)(data + 10);
	*(__u32 *)(data + 6) = d0;
	*(__u16 *)(data + 10) = d1;
	add(3, *(__u16 *)(data + 24));
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
