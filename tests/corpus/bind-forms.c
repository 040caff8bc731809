// C twin of bind-forms.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} table SEC(".maps");

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
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

static __always_inline void tset(__u32 k, __u64 v)
{
	bpf_map_update_elem(&table, &k, &v, BPF_ANY);
}

SEC("xdp")
int bind_forms(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *d = data;
	__u64 *p;
	__u32 key;

	if (data + 16 > data_end)
		return XDP_PASS;
	__u64 a = d[14], b = d[15], k = d[13] & 7;

	tset(3, 33);
	tset(5, 55);
	key = k;
	p = bpf_map_lookup_elem(&table, &key);
	if (p) {
		*p = *p + 1;
		add(0, *p);
	} else {
		add(0, 0);
	}
	if (a) {
		add(1, 1);
		if (b) {
			key = (b & 1) + 3;
			p = bpf_map_lookup_elem(&table, &key);
			if (p)
				add(2, a + b + *p);
		}
	}
	key = k;
	p = bpf_map_lookup_elem(&table, &key);
	add(3, p ? *p : 1000);
	add(4, (a & b) ? (a & b) * 2 : 7);
	key = k + 8;
	p = bpf_map_lookup_elem(&table, &key);
	if (p)
		add(5, 1);
	else
		add(6, 1);
	return (__u32)(a * 256 + b + k);
}

char LICENSE[] SEC("license") = "GPL";
