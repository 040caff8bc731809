// C twin of percpu.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} pc_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} pc_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 64);
} pc_lru SEC(".maps");

static __always_inline __u64 get(void *map, __u32 k)
{
	__u64 *v = bpf_map_lookup_elem(map, &k);

	return v ? *v : 0;
}

static __always_inline void set(void *map, __u32 k, __u64 v)
{
	bpf_map_update_elem(map, &k, &v, BPF_ANY);
}

/* Per-CPU values belong to this CPU alone: a plain add is enough. */
static __always_inline void add(void *map, __u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(map, &k);

	if (v)
		*v += d;
	else
		bpf_map_update_elem(map, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int percpu(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 14 > data_end)
		return XDP_PASS;
	__u64 etype = bpf_ntohs(*(__u16 *)(data + 12));
	__u64 len = data_end - data;

	add(&pc_array, 0, 1);
	add(&pc_array, 1, len);
	set(&pc_array, 2, get(&pc_array, 2) ^ etype);
	set(&pc_array, 3, get(&pc_array, 3) * 31 + len);
	add(&pc_hash, etype & 15, len);
	set(&pc_hash, 100, get(&pc_hash, 100) + 1);
	add(&pc_lru, *(__u32 *)(data + 6), 1);
	return (__u32)get(&pc_array, 3);
}

char LICENSE[] SEC("license") = "GPL";
