// C twin of wh-ringbuf.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 4);
	__uint(max_entries, 8);
} jt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 12);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
}

static __always_inline void set(__u32 k, __u64 d)
{
	bpf_map_update_elem(&results, &k, &d, 0);
}

SEC("xdp")
int rb_ring(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 len = data_end - data;
	int verdict = XDP_PASS;

	add(0, 1);
	if (len > 60) {
		__u64 *e = bpf_ringbuf_reserve(&events, 400, 0);

		if (e) {
			*e = len;
			add(1, 1);
			bpf_ringbuf_submit(e, 0);
		}
	} else {
		__u8 *e = bpf_ringbuf_reserve(&events, 40, 0);

		if (e) {
			__builtin_memset(e, 0, 40);
			add(2, 1);
			bpf_ringbuf_submit(e, 0);
		}
	}
	if (data + 54 <= data_end) {
		__u64 *e = bpf_ringbuf_reserve(&events, 24, 0);

		if (e) {
			if (bpf_ntohs(*(__u16 *)(data + 36)) == 9999) {
				bpf_ringbuf_discard(e, 0);
				add(3, 1);
				return XDP_DROP;
			}
			*e = *(__u64 *)(data + 26);
			verdict = XDP_TX;
			bpf_ringbuf_submit(e, 0);
		}
	}
	{
		__u64 b[2] = { 0, len };

		add(4, -bpf_ringbuf_output(&events, b, 16, 0));
	}
	set(5, bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA));
	bpf_tail_call(ctx, &jt, 0);
	add(6, 1);
	bpf_tail_call(ctx, &jt, len & 15);
	add(7, 1);
	return verdict;
}

char LICENSE[] SEC("license") = "GPL";
