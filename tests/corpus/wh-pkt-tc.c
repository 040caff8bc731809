// C twin of wh-pkt-tc.lisp
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

SEC("tc")
int pt_packet(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;

	if (data + 34 > data_end)
		return TC_ACT_OK;
	skb->mark = *(__u32 *)(data + 26);
	add(0, data_end - data);
	return TC_ACT_SHOT;
}

SEC("tc")
int pt_tcp(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;

	if (data + 54 > data_end)
		return TC_ACT_OK;
	if (*(__u16 *)(data + 12) == bpf_htons(0x0800) && *(__u8 *)(data + 23) == 6) {
		void *tcp = data + 34;
		__u16 dport = bpf_ntohs(*(__u16 *)(tcp + 2));

		add(1, dport);
		skb->mark = bpf_ntohl(*(__u32 *)(tcp + 4));
		if (dport == 9999)
			return TC_ACT_SHOT;
		if (*(__u8 *)(tcp + 13) & 0x10)
			return TC_ACT_PIPE;
	}
	add(2, 1);
	return TC_ACT_UNSPEC;
}

SEC("tc")
int pt_udp(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;

	if (data + 42 > data_end)
		return TC_ACT_OK;
	if (*(__u16 *)(data + 12) == bpf_htons(0x0800) && *(__u8 *)(data + 23) == 17) {
		void *udp = data + 34;

		skb->priority = bpf_ntohs(*(__u16 *)(udp + 4));
		add(3, (__u64)bpf_ntohs(*(__u16 *)udp) + bpf_ntohs(*(__u16 *)(udp + 2)));
	}
	/* with-tc-ipv4 needs 34 bytes: the 42 checked above cover it */
	if (*(__u16 *)(data + 12) == bpf_htons(0x0800)) {
		add(4, *(__u8 *)(data + 22));
		skb->mark = *(__u32 *)(data + 30);
	}
	return TC_ACT_RECLASSIFY;
}

SEC("tc")
int pt_parse(struct __sk_buff *skb)
{
	void *d = (void *)(long)skb->data;
	void *de = (void *)(long)skb->data_end;

	if (d + 34 <= de && *(__u16 *)(d + 12) == bpf_htons(0x0800)) {
		void *ip = d + 14;

		add(5, bpf_ntohs(*(__u16 *)(ip + 2)));
		if (d + 54 <= de && *(__u8 *)(ip + 9) == 6)
			skb->mark = bpf_ntohs(*(__u16 *)(d + 34));
		else if (d + 42 <= de && *(__u8 *)(ip + 9) == 17)
			skb->mark = bpf_ntohs(*(__u16 *)(d + 36));
	}
	if (d + 14 > de)
		return TC_ACT_OK;
	__u16 type = bpf_ntohs(*(__u16 *)(d + 12));
	add(6, type);
	return type + skb->mark;
}

char LICENSE[] SEC("license") = "GPL";
