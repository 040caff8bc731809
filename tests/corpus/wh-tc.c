// C twin of wh-tc.lisp
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
}

SEC("classifier")
int wh_tc(struct __sk_buff *skb)
{
	__u8 buf[16] = {};

	add(0, skb->len);
	add(1, skb->protocol);
	skb->mark = skb->len + 7;
	skb->priority = 3;
	if (bpf_skb_load_bytes(skb, 0, buf, 14) == 0)
		add(2, bpf_ntohs(*(__u16 *)(buf + 12)));
	add(3, skb->len);

	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;

	if (data + 54 <= data_end && *(__u16 *)(data + 12) == bpf_htons(0x0800) &&
	    *(__u8 *)(data + 23) == 6)
		add(4, bpf_ntohs(*(__u16 *)(data + 34)));
	if (data + 42 > data_end)
		return TC_ACT_OK;
	if (*(__u16 *)(data + 12) == bpf_htons(0x0800) && *(__u8 *)(data + 23) == 17)
		add(5, bpf_ntohs(*(__u16 *)(data + 36)));
	add(6, bpf_ntohs(*(__u16 *)(data + 12)));
	if (*(__u16 *)(data + 12) == bpf_htons(0x0800))
		add(7, *(__u8 *)(data + 22));
	return TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "GPL";
