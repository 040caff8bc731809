// C twin of big-parser.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define MAX_VLANS 2
#define MAX_EXT   3

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 64);
} dports SEC(".maps");

static __always_inline void map_add(void *map, const void *key, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(map, key);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(map, key, &d, BPF_NOEXIST);
}

static __always_inline void add(__u32 k, __u64 d)
{
	map_add(&results, &k, d);
}

SEC("xdp")
int big_parser(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 off = 14, proto, l4;

	add(0, 1);
	if (data + 14 > data_end) {
		add(7, 1);
		return XDP_DROP;
	}
	proto = bpf_ntohs(*(__u16 *)(data + 12));
	for (int i = 0; i < MAX_VLANS; i++) {
		if (proto == 0x8100 || proto == 0x88a8) {
			if (data + off + 4 > data_end) {
				add(7, 1);
				return XDP_DROP;
			}
			proto = bpf_ntohs(*(__u16 *)(data + off + 2));
			off += 4;
			add(1, 1);
		}
	}
	if (proto == 0x0800) {
		if (data + off + 20 > data_end) {
			add(7, 1);
			return XDP_DROP;
		}
		__u8 *ip = data + off;
		__u64 ihl = (ip[0] & 15) * 4;

		if (ihl < 20) {
			add(7, 1);
			return XDP_DROP;
		}
		add(2, 1);
		add(8, ihl - 20);
		if (bpf_ntohs(*(__u16 *)(ip + 6)) & 0x3fff) {
			add(11, 1);
			return XDP_PASS;
		}
		l4 = ip[9];
		off += ihl;
	} else if (proto == 0x86dd) {
		if (data + off + 40 > data_end) {
			add(7, 1);
			return XDP_DROP;
		}
		add(3, 1);
		l4 = *(__u8 *)(data + off + 6);
		off += 40;
		for (int i = 0; i < MAX_EXT; i++) {
			if (l4 == 0 || l4 == 43 || l4 == 60) {
				if (data + off + 8 > data_end) {
					add(7, 1);
					return XDP_DROP;
				}
				__u8 *h = data + off;

				l4 = h[0];
				off += (h[1] + 1) * 8;
				add(9, 1);
			}
		}
		if (l4 == 44) {
			add(11, 1);
			return XDP_PASS;
		}
	} else {
		add(13, 1);
		return XDP_PASS;
	}
	add(14, off);
	if (l4 == 6) {
		if (data + off + 20 > data_end) {
			add(7, 1);
			return XDP_DROP;
		}
		__u8 *th = data + off;
		__u32 dport = bpf_ntohs(*(__u16 *)(th + 2));
		__u64 doff = (th[12] >> 4) * 4;
		__u8 flags = th[13];

		add(4, 1);
		if ((flags & 0x12) == 0x02)
			add(12, 1);
		if ((void *)th + doff <= data_end)
			add(10, data_end - ((void *)th + doff));
		map_add(&dports, &dport, 1);
		return dport == 23 ? XDP_DROP : XDP_PASS;
	} else if (l4 == 17) {
		if (data + off + 8 > data_end) {
			add(7, 1);
			return XDP_DROP;
		}
		__u8 *uh = data + off;
		__u32 dport = bpf_ntohs(*(__u16 *)(uh + 2)) | 0x10000;
		__u64 len = bpf_ntohs(*(__u16 *)(uh + 4));

		add(5, 1);
		if (len >= 8)
			add(10, len - 8);
		map_add(&dports, &dport, 1);
		return XDP_PASS;
	}
	add(6, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
