// C twin of raw-args.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u64);
	__uint(max_entries, 16);
} by_id SEC(".maps");

static __always_inline void map_add(void *map, const void *key, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(map, key);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(map, key, &d, BPF_NOEXIST);
}

static __always_inline void add(__u32 k, __u64 d)
{
	map_add(&results, &k, d);
}

SEC("raw_tp/sys_enter")
int raw_args(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 regs = ctx->args[0];
	__u64 id = ctx->args[1];

	add(0, id);
	add(1, regs & 0xffff);
	add(2, 1);
	add(3, (__s64)id < 0 ? 1 : 0);
	map_add(&by_id, &id, regs);
	return (__u32)(id + 1);
}

char LICENSE[] SEC("license") = "GPL";
