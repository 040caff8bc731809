// C twin of wh-typed.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 24);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
}

SEC("xdp")
int ty_vars(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 54 > data_end)
		return XDP_PASS;

	__u8 ttl = *(__u8 *)(data + 22);
	__u16 len = bpf_ntohs(*(__u16 *)(data + 16)) + 0xffc0;
	__u32 seq = bpf_ntohl(*(__u32 *)(data + 38));
	__s16 et = *(__s16 *)(data + 12);
	__u8 n = *(__u8 *)(data + 47);
	__s8 st = *(__s8 *)(data + 22);

	ttl += 250;
	add(0, ttl);
	for (int i = 0; i < 3; i++)
		ttl += 100;
	add(1, ttl);
	ttl -= ttl + 1;
	add(2, ttl);
	add(3, len);
	len *= 3;
	add(4, len);
	seq += 0xfffffff0;
	add(5, seq);
	add(6, (__s64)et + 100000);
	add(7, (__s64)st + 1000);
	if (st < 0)
		add(8, 1);
	st += 100;
	add(9, (__s64)st + 1000);
	st -= 200;
	add(10, (__s64)st + 1000);
	n += 255;
	add(11, n);
	{
		__s32 s = bpf_ntohl(*(__u32 *)(data + 38));
		__u16 z = 0;

		add(12, (__s64)s);
		add(13, z + 1);
		z = 70000 + (__s64)s;
		add(14, z);
	}
	{
		__u8 a = *(__u8 *)(data + 22);
		__u8 b = *(__u8 *)(data + 23);

		a += 100;
		b -= 7;
		add(15, (__u64)a * 1000 + b);
	}
	{
		__u8 a = *(__u8 *)(data + 22) + 200;
		__u64 b = (__u64)a * 2;

		add(16, b);
	}
	{
		__u8 z = *(__u8 *)(data + 22) * 4;

		if (z)
			add(17, z);
	}
	{
		__u16 lo = bpf_ntohl(*(__u32 *)(data + 38)) - 0x10000;

		add(18, lo ? lo : 7777);
	}
	return ttl + 10;
}

char LICENSE[] SEC("license") = "GPL";
