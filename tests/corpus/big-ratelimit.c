// C twin of big-ratelimit.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define NS_PER_MS 1000000ULL
#define RATE      100ULL
#define BURST     1000ULL

struct bucket {
	__u64 tokens, last;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct bucket);
	__uint(max_entries, 256);
} buckets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 256);
} dropped SEC(".maps");

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

static __always_inline void add(__u32 k, __u64 d)
{
	map_add(&results, &k, d);
}

SEC("xdp")
int big_ratelimit(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;

	if (data + 34 > data_end)
		return XDP_PASS;
	if (*(__u16 *)(p + 12) != bpf_htons(0x0800)) {
		add(4, 1);
		return XDP_PASS;
	}
	__u32 src = *(__u32 *)(p + 26);
	__u64 now = bpf_ntohs(*(__u16 *)(p + 18)) * NS_PER_MS;
	__u64 cost = data_end - data;
	struct bucket *b = bpf_map_lookup_elem(&buckets, &src);

	if (!b) {
		struct bucket n = { .tokens = BURST, .last = now };

		bpf_map_update_elem(&buckets, &src, &n, BPF_NOEXIST);
		add(2, 1);
		b = bpf_map_lookup_elem(&buckets, &src);
		if (!b)
			return XDP_PASS;
	}
	__u64 elapsed = now > b->last ? now - b->last : 0;
	__u64 tokens = b->tokens + elapsed * RATE / NS_PER_MS;

	if (tokens > BURST)
		tokens = BURST;
	b->last = now;
	if (tokens >= cost) {
		b->tokens = tokens - cost;
		add(0, 1);
		add(3, cost);
		return XDP_PASS;
	}
	b->tokens = tokens;
	add(1, 1);
	map_add(&dropped, &src, 1);
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
