// C twin of key-widths.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct k3 {
	__u8 a;
	__u32 b;
	__u16 c;
};

#define HASH(name, K, V)                         \
	struct {                                 \
		__uint(type, BPF_MAP_TYPE_HASH); \
		__type(key, K);                  \
		__type(value, V);                \
		__uint(max_entries, 16);         \
	} name SEC(".maps")

HASH(by_u8, __u8, __u64);
HASH(by_u16, __u16, __u64);
HASH(by_u32, __u32, __u64);
HASH(by_u64, __u64, __u64);
HASH(small_vals, __u32, __u32);
HASH(by_k3, struct k3, __u64);

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} results SEC(".maps");

static __always_inline void map_add(void *map, const void *key, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(map, key);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(map, key, &d, BPF_NOEXIST);
}

static __always_inline __u64 get(void *map, const void *key)
{
	__u64 *v = bpf_map_lookup_elem(map, key);

	return v ? *v : 0;
}

static __always_inline void add(__u32 k, __u64 d)
{
	map_add(&results, &k, d);
}

SEC("xdp")
int key_widths(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct k3 kk;

	if (data + 16 > data_end)
		return XDP_PASS;
	__u64 x = *(__u64 *)data;
	__u64 k = 0x100000000ULL + (x & 0x0f0f);
	__u8 k8 = k;
	__u16 k16 = k;
	__u32 k32 = k;
	__u64 k64 = k;

	map_add(&by_u8, &k8, 1);
	map_add(&by_u16, &k16, 2);
	map_add(&by_u32, &k32, 3);
	map_add(&by_u64, &k64, 4);
	k8 = k + 256;
	map_add(&by_u8, &k8, 10);

	__u32 sv = x + 0x100000000ULL;

	bpf_map_update_elem(&small_vals, &k32, &sv, BPF_ANY);
	{
		__u32 *v = bpf_map_lookup_elem(&small_vals, &k32);

		add(0, v ? *v : 0);
	}
	k32 = k & 0xffffffff;
	add(1, get(&by_u32, &k32));
	k64 = k & 0xffffffff;
	add(2, get(&by_u64, &k64));
	k32 = 2 + (x & 7);
	map_add(&arr, &k32, 5);
	add(3, get(&arr, &k32));

	__builtin_memset(&kk, 0, sizeof(kk));
	kk.a = *(__u8 *)(data + 8);
	kk.b = *(__u32 *)(data + 9);
	kk.c = *(__u16 *)(data + 13);
	map_add(&by_k3, &kk, *(__u8 *)(data + 15));
	add(4, get(&by_k3, &kk));
	add(5, sizeof(struct k3));

	k32 = k;
	__u32 *v = bpf_map_lookup_elem(&small_vals, &k32);

	return v ? *v : 0;
}

char LICENSE[] SEC("license") = "GPL";
