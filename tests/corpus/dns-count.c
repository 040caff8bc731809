// C twin of dns-count.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define MAX_NAME     32
#define QNAME_OFFSET (14 + 20 + 8 + 12)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u64);
	__uint(max_entries, 128);
} qnames SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
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
int dns_count(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + QNAME_OFFSET > data_end)
		return XDP_PASS;
	if (!(*(__u16 *)(data + 12) == bpf_htons(0x0800) && *(__u8 *)(data + 14) == 0x45 &&
	      *(__u8 *)(data + 23) == 17 && bpf_ntohs(*(__u16 *)(data + 36)) == 53))
		return XDP_PASS;

	__u64 h = 5381, n = 0, done = 0;

	for (int i = 0; i < MAX_NAME; i++) {
		__u8 *p = data + QNAME_OFFSET + i;

		if (done == 0 && (void *)(p + 1) <= data_end) {
			__u64 c = *p;

			if (c == 0) {
				done = 1;
			} else {
				h = h * 33 + c;
				n = n + 1;
			}
		}
	}
	map_add(&qnames, &h, 1);
	add(0, n);
	add(1, 1);
	if (done == 0) {
		add(2, 1);
		return XDP_DROP;
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
