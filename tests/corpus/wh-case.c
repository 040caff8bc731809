// C twin of wh-case.lisp
#include <linux/bpf.h>
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

SEC("xdp")
int cs_case(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 v;

	if (data + 14 > data_end)
		return XDP_ABORTED;
	switch (bpf_ntohs(*(__u16 *)(data + 12))) {
	case 0x0800: v = 4; break;
	case 0x86dd: v = 6; break;
	case 0x0806: case 0x8035: v = 1; break;
	default: v = 99;
	}
	add(0, v);
	if (data + 54 > data_end) {
		switch (data_end - data) {
		case 14: return 20;
		case 20: case 34: return 21;
		default: return 22;
		}
	}

	__u8 proto = *(__u8 *)(data + 23);
	__u16 dport = bpf_ntohs(*(__u16 *)(data + 36));
	__u8 flags = *(__u8 *)(data + 47);

	switch (proto) {
	case 6: add(2, 1); v = 600; break;
	case 17: v = 1700; break;
	default: v = 0;
	}
	add(1, v);
	add(3, 1);
	switch (dport) {
	case 80: v = 1; break;
	case 443: v = 2; break;
	case 53: case 7: v = 3; break;
	case 9999: v = 4; break;
	default: v = 5;
	}
	add(4, v);
	if (proto == 6) {
		if (flags == 0x02)
			add(5, 1);
		else if (flags == 0x10 || flags == 0x18)
			add(6, dport);
		else
			add(7, flags);
	} else if (proto == 17) {
		add(8, dport);
	} else {
		add(9, proto);
	}
	switch (dport) {
	case 9999: return XDP_DROP;
	case 443: case 51000: return XDP_TX;
	default: return XDP_PASS;
	}
}

char LICENSE[] SEC("license") = "GPL";
