// C twin of map-zoo.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, 4);
	__uint(value_size, 8 * 127);
	__uint(max_entries, 64);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 4);
	__uint(max_entries, 4);
} perf_out SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 4);
	__uint(max_entries, 2);
} cgroups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} lru_pc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 4);
	__uint(max_entries, 2);
} progs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
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
int map_zoo(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 buf;

	if (data + 14 > data_end)
		return XDP_PASS;
	buf = *(__u64 *)data;
	add(0, bpf_perf_event_output(ctx, &perf_out, BPF_F_CURRENT_CPU, &buf, 8));
	add(1, bpf_ringbuf_output(&ring, &buf, 8, 0));

	__u32 k = *(__u16 *)(data + 12);
	__u64 d = *(__u8 *)(data + 13);
	__u64 *v = bpf_map_lookup_elem(&lru_pc, &k);

	if (v)
		*v += d;
	else
		bpf_map_update_elem(&lru_pc, &k, &d, BPF_NOEXIST);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
