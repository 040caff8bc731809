// C twin of upper-macros.lisp (macros.c, its program renamed)
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} results SEC(".maps");

static __always_inline void bump(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

#define DEF_COUNTER(name, slot)							\
	SEC("xdp")								\
	int name(struct xdp_md *ctx)						\
	{									\
		void *data = (void *)(long)ctx->data;				\
		void *data_end = (void *)(long)ctx->data_end;			\
										\
		bump(slot, 1);							\
		bump(slot + 1, data + 1 > data_end ? 0 : *(__u8 *)data);	\
		return XDP_PASS;						\
	}

DEF_COUNTER(count_a, 10)
DEF_COUNTER(count_b, 12)

SEC("xdp")
int upper_macros(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 34 <= data_end && *(__u16 *)(data + 12) == bpf_htons(0x0800)) {
		__u8 *ip = data + 14;
		__u64 a = *(__u32 *)(ip + 12), b = *(__u32 *)(ip + 16), tmp = 5;
		__u64 t = a;

		a = b;
		b = t;
		bump(0, 1);
		bump(1, a - b);
		bump(2, a + tmp + ip[0] + ip[9]);
		bump(3, tmp);
	}
	bump(4, 0);
	bump(5, 1 + 2 + 3);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
