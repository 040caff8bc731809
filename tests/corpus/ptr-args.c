// C twin of ptr-args.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 2);
} stats SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

static __always_inline __u64 ip_proto(void *data, void *data_end)
{
	if (data + 34 > data_end)
		return 0;
	if (*(__u16 *)(data + 12) == bpf_htons(0x0800))
		return *(__u8 *)(data + 23);
	return 0;
}

static __always_inline __u64 fill_pair(void *buf, __u64 a, __u64 b)
{
	*(__u32 *)buf = a;
	*(__u32 *)(buf + 4) = b;
	return a + b;
}

static __always_inline __u64 bump_value(__u64 *p, __u64 delta)
{
	*p = *p + delta;
	return *p;
}

static __always_inline void *l4_header(void *data, void *data_end)
{
	if (data + 38 > data_end)
		return 0;
	return data + 34;
}

SEC("xdp")
int ptr_args(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 buf = 0;
	__u32 zero = 0;

	__u64 proto = ip_proto(data, data_end);

	add(0, proto);
	add(1, fill_pair(&buf, *(__u8 *)&buf, proto + 1000));
	add(2, (__u64)((__u32 *)&buf)[0] + (__u64)((__u32 *)&buf)[1] * 3);

	__u64 *p = bpf_map_lookup_elem(&stats, &zero);

	if (p)
		add(3, bump_value(p, proto + 1));

	void *l4 = l4_header(data, data_end);

	if (l4 && l4 + 4 <= data_end)
		add(4, bpf_ntohs(*(__u16 *)(l4 + 2)));
	return (__u32)proto;
}

char LICENSE[] SEC("license") = "GPL";
