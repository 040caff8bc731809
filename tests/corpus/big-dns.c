// C twin of big-dns.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define MAX_NAME  48
#define FNV_BASIS 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 64);
} qtypes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u64);
	__uint(max_entries, 256);
} names SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 10);
} results SEC(".maps");

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
int big_dns(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *d = data;

	if (data + 34 > data_end)
		return XDP_PASS;
	if (!(*(__u16 *)(d + 12) == bpf_htons(0x0800) && d[23] == 17))
		return XDP_PASS;
	__u8 *uh = d + 14 + (d[14] & 15) * 4;

	if ((void *)(uh + 20) > data_end)
		return XDP_PASS;
	__u64 sport = bpf_ntohs(*(__u16 *)uh), dport = bpf_ntohs(*(__u16 *)(uh + 2));
	__u64 flags = bpf_ntohs(*(__u16 *)(uh + 10)), qd = bpf_ntohs(*(__u16 *)(uh + 12));

	if (sport == 53) {
		add(1, 1);
		if (flags & 15)
			add(2, 1);
		return XDP_PASS;
	}
	if (dport != 53)
		return XDP_PASS;
	if (flags & 0x8000)
		return XDP_PASS;
	if ((flags >> 11) & 15) {
		add(3, 1);
		return XDP_PASS;
	}
	if (qd != 1) {
		add(4, 1);
		return XDP_PASS;
	}
	add(0, 1);
	__u8 *q = uh + 20;
	__u64 h = FNV_BASIS, left = 0, labels = 0, len = 0, end = 0;

	for (__u64 i = 0; i < MAX_NAME; i++) {
		if (end == 0) {
			__u8 *p = q + i;

			if ((void *)(p + 1) > data_end) {
				end = 255;
			} else {
				__u64 c = *p;

				if (left != 0) {
					if (c >= 65 && c <= 90)
						c += 32;
					h = (h ^ c) * FNV_PRIME;
					left--;
					len++;
				} else if (c == 0) {
					end = i + 1;
				} else {
					h = (h ^ 46) * FNV_PRIME;
					left = c & 63;
					labels++;
				}
			}
		}
	}
	if (end == 255) {
		add(9, 1);
		return XDP_DROP;
	}
	if (end == 0) {
		add(5, 1);
		return XDP_DROP;
	}
	__u8 *qt = q + end;

	if ((void *)(qt + 2) > data_end) {
		add(9, 1);
		return XDP_DROP;
	}
	__u32 qtype = bpf_ntohs(*(__u16 *)qt);

	map_add(&qtypes, &qtype, 1);
	map_add(&names, &h, 1);
	add(7, len);
	add(8, labels);
	if (qtype == 255) {
		add(6, 1);
		return XDP_DROP;
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
