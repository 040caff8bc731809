// C twin of hash-ops.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u16);
	__type(value, __u64);
	__uint(max_entries, 32);
} table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} results SEC(".maps");

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

static __always_inline __u64 tget(__u16 k)
{
	__u64 *v = bpf_map_lookup_elem(&table, &k);

	return v ? *v : 0;
}

static __always_inline long tupdate(__u16 k, __u64 v, __u64 flags)
{
	return bpf_map_update_elem(&table, &k, &v, flags);
}

SEC("xdp")
int hash_ops(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u16 k;

	if (data + 14 > data_end)
		return XDP_PASS;
	__u64 etype = bpf_ntohs(*(__u16 *)(data + 12));
	__u64 key = etype & 0x1f;
	__u64 len = data_end - data;
	__u64 before = tget(key);

	add(0, before);
	add(1, tupdate(key, len, BPF_NOEXIST));
	add(2, tupdate(key + 1, len, BPF_EXIST));
	tupdate(1000, 7, BPF_ANY);
	k = 1000;
	map_add(&table, &k, (__u64)-2);
	add(3, tget(1000));
	if (len > 1000) {
		k = key;
		bpf_map_delete_elem(&table, &k);
	}
	k = 999;
	add(4, bpf_map_delete_elem(&table, &k));
	add(5, tget(key));
	tupdate(key + 100, len * 2, BPF_ANY);
	k = 2000;
	map_add(&table, &k, len);
	k = etype + 0x10000;
	map_add(&table, &k, 1);
	add(6, tget(2000));
	return (__u32)(before + tget(key + 100));
}

char LICENSE[] SEC("license") = "GPL";
