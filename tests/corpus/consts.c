// C twin of consts.lisp
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#define BASE   16
#define SLOTS  (BASE * 2)
#define MASK   ((1 << 12) - 1)
#define LETTER 'a'

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, SLOTS + 8);
} results SEC(".maps");

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
int consts(struct xdp_md *ctx)
{
	set(0, 0x1f);
	set(1, 10);
	set(2, 017);
	set(3, LETTER);
	set(4, (__u64)-7);
	set(5, SLOTS);
	set(6, MASK);
	set(7, XDP_ABORTED);
	set(8, XDP_DROP);
	set(9, XDP_PASS);
	set(10, XDP_TX);
	set(11, XDP_REDIRECT);
	set(12, TC_ACT_OK);
	set(13, TC_ACT_SHOT);
	set(14, BPF_ANY);
	set(15, BPF_NOEXIST);
	set(16, BPF_EXIST);
	set(17, BPF_F_CURRENT_CPU);
	set(18, 0xffff);
	set(19, 'Z');

	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 14 > data_end)
		return XDP_PASS;
	add(20, *(__u16 *)(data + 12) & MASK);
	add(21, *(__u8 *)data + LETTER + 1 + 010 + 0x100);
	add(SLOTS - 1, (__u64)*(__u8 *)(data + 13) * BASE);
	return *(__u8 *)(data + 13) == 0377 ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
