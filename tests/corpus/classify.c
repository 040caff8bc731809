// C twin of classify.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} verdicts SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&verdicts, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&verdicts, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int classify(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 len = data_end - data;
	__u32 verdict;

	if (data + 14 > data_end) {
		add(7, 1);
		return XDP_ABORTED;
	}

	__u16 proto = *(__u16 *)(data + 12);

	if (len == 14)
		verdict = XDP_ABORTED;
	else if (proto == bpf_htons(0x0806))
		verdict = XDP_TX;
	else if (proto == bpf_htons(0x86dd))
		verdict = len > 60 ? XDP_REDIRECT : XDP_PASS;
	else if (proto != bpf_htons(0x0800))
		verdict = XDP_DROP;
	else if (data + 34 > data_end)
		return XDP_DROP;
	else {
		__u8 l4 = *(__u8 *)(data + 23);

		if (l4 == 1) {
			add(5, 1);
			verdict = XDP_TX;
		} else if (l4 == 17) {
			if (!(len > 100))
				add(6, 1);
			verdict = XDP_PASS;
		} else if (l4 == 6) {
			if (len > 1000) {
				add(4, len);
				verdict = XDP_DROP;
			} else {
				verdict = XDP_PASS;
			}
		} else {
			verdict = XDP_ABORTED;
		}
	}
	add(verdict, 1);
	return verdict;
}

char LICENSE[] SEC("license") = "GPL";
