// C twin of places.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct counters {
	__u8 small;
	__u16 mid;
	__u32 word;
	__u64 big;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct counters);
	__uint(max_entries, 2);
} ctrs SEC(".maps");

static __always_inline void set(__u32 k, __u64 v)
{
	bpf_map_update_elem(&results, &k, &v, BPF_ANY);
}

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int places(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *d = data;

	if (data + 14 > data_end)
		return XDP_PASS;
	__u64 a = 0, b = 0, c = 10;

	a = d[0];
	b = a + 1;
	a++;
	b += 10;
	c--;
	c -= d[1];
	set(0, a);
	set(1, b);
	set(2, c);
	add(3, (__u64)-5);
	add(4, (__u64)-1);
	add(5, d[2]);
	set(6 + (d[3] & 7), *(__u16 *)(data + 12));

	__u32 k = d[5] & 1;
	struct counters *p = bpf_map_lookup_elem(&ctrs, &k);

	if (p) {
		p->small += 100;
		p->mid += 20000;
		p->word += 0x7fffffff;
		p->big -= d[4];
		p->small = p->small + 1;
		p->mid = p->mid + p->small;
	}
	return (__u32)(a + b * 256 + c * 65536);
}

char LICENSE[] SEC("license") = "GPL";
