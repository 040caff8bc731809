// C twin of ev-drops.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct big {
	__u8 proto;
	__u8 padding[3];
	__u32 n;
	__u8 fill[992];
} __attribute__((packed));

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} events_drops SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);
	if (v)
		__sync_fetch_and_add(v, d);
}

static __always_inline __u64 get(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);
	return v ? *v : 0;
}

SEC("xdp")
int ev_drops(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	if (data + 34 > data_end)
		return XDP_PASS;
	__u8 proto = *(__u8 *)(data + 23);
	struct big *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (e) {
		add(0, 1);
		if (proto != 6) {
			add(1, 1);
			bpf_ringbuf_discard(e, 0);
		} else {
			e->proto = proto;
			e->n = (__u32)get(0);
			add(2, 1);
			bpf_ringbuf_submit(e, 0);
		}
	} else {
		__u32 zero = 0;
		__u64 *d = bpf_map_lookup_elem(&events_drops, &zero);
		if (d)
			__sync_fetch_and_add(d, 1);
	}
	add(3, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
