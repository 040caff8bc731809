// C twin of big-syslat.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct start {
	__u64 ts, id;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct start);
	__uint(max_entries, 1024);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} clock SEC(".maps");

#define STATS_MAP(name)                                \
	struct {                                       \
		__uint(type, BPF_MAP_TYPE_HASH);       \
		__type(key, __u64);                    \
		__type(value, __u64);                  \
		__uint(max_entries, 256);              \
	} name SEC(".maps")
STATS_MAP(counts);
STATS_MAP(totals);
STATS_MAP(maxima);
STATS_MAP(errors);

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 64);
} lat_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
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

static __attribute__((noinline)) __u64 tick(void)
{
	__u32 k = 0;
	__u64 *c = bpf_map_lookup_elem(&clock, &k);

	if (!c)
		return 0;
	*c += 7;
	return *c;
}

static __always_inline __u64 log2_64(__u64 v)
{
	__u64 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >= 1 << 16) { v >>= 16; r += 16; }
	if (v >= 1 << 8) { v >>= 8; r += 8; }
	if (v >= 1 << 4) { v >>= 4; r += 4; }
	if (v >= 1 << 2) { v >>= 2; r += 2; }
	if (v >= 1 << 1) { r += 1; }
	return r;
}

SEC("raw_tp/sys_enter")
int big_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	struct start s = {};
	__u64 key;

	s.ts = tick();
	s.id = ctx->args[1];
	key = bpf_get_current_pid_tgid();
	bpf_map_update_elem(&starts, &key, &s, BPF_ANY);
	add(0, 1);
	return 0;
}

SEC("raw_tp/sys_exit")
int big_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 now = tick();
	__u64 key = bpf_get_current_pid_tgid();
	__u64 ret = ctx->args[1];
	struct start *s = bpf_map_lookup_elem(&starts, &key);

	add(1, 1);
	if (!s) {
		add(2, 1);
		return 0;
	}
	__u64 id = s->id, lat = now - s->ts;

	bpf_map_delete_elem(&starts, &key);
	map_add(&counts, &id, 1);
	map_add(&totals, &id, lat);
	__u64 *mx = bpf_map_lookup_elem(&maxima, &id);

	if (lat > (mx ? *mx : 0))
		bpf_map_update_elem(&maxima, &id, &lat, BPF_ANY);
	if ((__s64)ret < 0)
		map_add(&errors, &id, 1);
	__u32 slot = log2_64(lat);

	map_add(&lat_hist, &slot, 1);
	return (__u32)lat;
}

char LICENSE[] SEC("license") = "GPL";
