// C twin of big-bytes.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define SCAN 64

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

SEC("xdp")
int big_bytes(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *d = data;

	if (data + 34 > data_end)
		return XDP_PASS;
	if (*(__u16 *)(d + 12) != bpf_htons(0x0800))
		return XDP_PASS;
	__u64 ihl = (d[14] & 15) * 4;
	__u8 proto = d[23];
	__u8 *l4 = d + 14 + ihl;
	__u64 zeros = 0, printable = 0, high = 0, sum = 0, n = 0;

	if ((void *)(l4 + 20) > data_end)
		return XDP_PASS;
	__u8 *payload;

	if (proto == 6)
		payload = l4 + (l4[12] >> 4) * 4;
	else if (proto == 17)
		payload = l4 + 8;
	else
		return XDP_PASS;
	if ((void *)(payload + 4) <= data_end && payload[0] == 71 && payload[1] == 69 &&
	    payload[2] == 84 && payload[3] == 32)
		add(5, 1);
	for (int i = 0; i < SCAN; i++) {
		__u8 *p = payload + i;

		if ((void *)(p + 1) <= data_end) {
			__u64 c = *p;

			if (c == 0)
				zeros++;
			else if (c >= 128)
				high++;
			else if (c >= 32 && c < 127)
				printable++;
			sum += c;
			n++;
		}
	}
	add(0, zeros);
	add(1, printable);
	add(2, high);
	add(3, sum);
	add(6, n);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
