// C twin of helpers.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 4);
	__uint(max_entries, 4);
} jump SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} scratch SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int helpers(struct xdp_md *ctx)
{
	__u64 t0 = bpf_ktime_get_ns();
	__u64 t1 = bpf_ktime_get_ns();

	add(0, t1 >= t0 ? 1 : 0);
	add(1, t0 > 0 ? 1 : 0);
	bpf_tail_call(ctx, &jump, 0);
	add(2, 1);
	add(3, bpf_get_smp_processor_id() < 4096 ? 1 : 0);

	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 k;
	__u64 v;

	if (data + 14 > data_end)
		return XDP_PASS;
	bpf_tail_call(ctx, &jump, *(__u8 *)(data + 13));
	k = *(__u8 *)(data + 12);
	v = *(__u64 *)data;
	add(4, bpf_map_update_elem(&scratch, &k, &v, BPF_ANY));

	__u64 *p = bpf_map_lookup_elem(&scratch, &k);

	if (p)
		add(5, *p);
	add(6, bpf_map_delete_elem(&scratch, &k));
	add(7, bpf_map_delete_elem(&scratch, &k));
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
