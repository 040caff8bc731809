// C twin of tc-fields.lisp
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
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

SEC("tc")
int tc_fields(struct __sk_buff *skb)
{
	__u64 len = skb->len;
	__u64 proto = bpf_ntohs(skb->protocol);

	add(0, len);
	add(1, proto);
	add(2, skb->pkt_type);
	add(3, skb->ifindex + (__u64)skb->ingress_ifindex * 1000);
	skb->mark = len * 3 + proto;
	skb->priority = len & 7;
	add(4, skb->mark);

	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;

	if (data + 34 > data_end)
		return TC_ACT_OK;
	add(5, *(__u8 *)(data + 22));
	return *(__u8 *)(data + 23) == 17 ? TC_ACT_SHOT : TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
