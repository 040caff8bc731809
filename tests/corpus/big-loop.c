// C twin of big-loop.lisp: the long loops as bpf_loop callbacks, by hand
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
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 64);
} bytes SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);   /* as kiln's incf of a map element: atomic */
}

static __u64 __attribute__((noinline)) mix(__u64 a, __u64 b)
{
	return (a * 31) ^ b;
}

struct hash_ctx { __u64 h, n, len; };

static long hash_round(__u64 i, void *p)
{
	struct hash_ctx *c = p;

	c->h = (c->h ^ (i + c->len)) * 1099511628211ULL;
	if ((c->h & 7) == 3)
		c->n++;
	if ((c->h & 255) == 17)
		c->n += 100;
	return 0;
}

struct scan_ctx { __u64 data, end, sum, cnt; };

static long scan_byte(__u64 i, void *p)
{
	struct scan_ctx *c = p;
	__u8 *b = (__u8 *)(long)c->data + i;

	if (i >= 1500)
		return 1;
	if ((void *)(b + 1) <= (void *)(long)c->end) {
		__u32 k = *b & 63;
		__u64 *v;

		c->sum += mix(*b, i);
		c->cnt++;
		v = bpf_map_lookup_elem(&bytes, &k);
		if (v) {
			__sync_fetch_and_add(v, 1);
		} else {
			__u64 one = 1;

			bpf_map_update_elem(&bytes, &k, &one, BPF_ANY);
		}
	}
	return 0;
}

static long nested(__u64 j, void *p)
{
	__u64 len = *(__u64 *)p;

	for (__u64 k = 0; k < 300; k++)
		add(4, j * k * len);
	return 0;
}

struct recur_ctx { __u64 s, x; };

static long recur_round(__u64 i, void *p)
{
	struct recur_ctx *c = p;

	c->s = c->s * 3 + c->x + i;
	return 0;
}

static __u64 __attribute__((noinline)) recur(__u64 x)
{
	struct recur_ctx c = { 0, x };

	bpf_loop(5000, recur_round, &c, 0);
	return c.s;
}

SEC("xdp")
int big_loop(struct xdp_md *ctx)
{
	__u64 data = ctx->data, end = ctx->data_end;
	__u64 len = end - data;
	struct hash_ctx hc = { 14695981039346656037ULL, 0, len };
	struct scan_ctx sc = { data, end, 0, 0 };

	bpf_loop(4000, hash_round, &hc, 0);
	add(0, hc.h);
	add(1, hc.n);
	bpf_loop(1500, scan_byte, &sc, 0);
	add(2, sc.sum);
	add(3, sc.cnt);
	bpf_loop(40, nested, &len, 0);
	add(6, recur(len));
	for (__u64 j = 0; j < 2000; j++) {
		if (j == 1700 + len)
			return len > 60 ? XDP_DROP : XDP_PASS;
		add(5, 1);
	}
	return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
