// C twin of wh-ctx-tc.lisp
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 12);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
}

static __always_inline void set(__u32 k, __u64 d)
{
	bpf_map_update_elem(&results, &k, &d, 0);
}

SEC("tc")
int cx_ctx(struct __sk_buff *skb)
{
	__u64 len = skb->len;
	__u64 proto = skb->protocol;

	add(0, len);
	add(1, proto + 65536 * (__u64)*(volatile __u16 *)((void *)skb + 16));
	add(2, *(volatile __u8 *)skb);
	skb->mark = len * 3;
	add(3, skb->mark);
	skb->mark = skb->mark + proto;
	skb->priority = len & 15;
	skb->cb[0] = bpf_ntohs(proto);
	skb->cb[1] = len + 1;

	__u64 buf[2] = {}, b2[2] = {};
	if (bpf_skb_load_bytes(skb, 0, buf, 14) == 0)
		add(4, (__u64)bpf_ntohs(*(__u16 *)((void *)buf + 12)) + *(__u32 *)buf);
	set(5, bpf_skb_load_bytes(skb, 23, b2, 11));
	add(6, b2[0] + *(__u32 *)&b2[1]);
	set(7, bpf_skb_load_bytes(skb, 60, buf, 9));
	if (bpf_skb_load_bytes_relative(skb, 0, b2, 12, BPF_HDR_START_NET) == 0)
		add(8, *(__u32 *)&b2[1]);

	void *d = (void *)(long)skb->data;
	void *de = (void *)(long)skb->data_end;
	if (d + 34 <= de) {
		add(9, *(__u8 *)(d + 23));
		skb->cb[0] = *(__u32 *)(d + 26);
	}
	return skb->mark + skb->priority;
}

char LICENSE[] SEC("license") = "GPL";
