// C twin of signed-fields.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct sample {
	__s8 s8;
	__u8 u8f;
	__s16 s16;
	__s32 s32;
	__u32 u32f;
	__s64 s64;
};

struct ev {
	__s8 a;
	__s16 b;
	__s32 c;
	__u16 d;
} __attribute__((packed));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct sample);
	__uint(max_entries, 1);
} samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__uint(value_size, sizeof(struct ev));
	__uint(max_entries, 1);
} evs SEC(".maps");

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

SEC("xdp")
int signed_fields(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 zero = 0;

	if (data + 16 > data_end)
		return XDP_PASS;
	__u64 x = *(__u64 *)data, y = *(__u64 *)(data + 8);
	struct sample *s = bpf_map_lookup_elem(&samples, &zero);

	if (s) {
		s->s8 = x;
		s->u8f = x;
		s->s16 = y;
		s->s32 = 0 - y;
		s->u32f = 0 - y;
		s->s64 = x - y;
		add(0, (__u64)(__s64)s->s8);
		add(1, s->u8f);
		add(2, (__u64)(__s64)s->s16);
		add(3, (__u64)(__s64)s->s32);
		add(4, s->u32f);
		add(5, (__u64)s->s64);
		add(6, (__s64)s->s8 < 0 ? 1 : 0);
		add(7, (__u64)(__s64)s->s16 < 100 ? 1 : 0);
		add(8, 1000 + (__u64)(__s64)s->s32);
	}

	struct ev *e = bpf_map_lookup_elem(&evs, &zero);

	if (e) {
		e->a = y;
		e->b = 0 - x;
		e->c = x * 3;
		e->d = 0 - x;
		add(9, (__u64)(__s64)e->a);
		add(10, (__u64)(__s64)e->b);
		add(11, (__u64)(__s64)e->c);
		add(12, e->d);
	}
	__u32 k = 0;
	__u64 *r = bpf_map_lookup_elem(&results, &k);

	return r ? (__u32)*r : 0;
}

char LICENSE[] SEC("license") = "GPL";
