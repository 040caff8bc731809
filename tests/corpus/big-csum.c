// C twin of big-csum.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define MAX_UDP_WORDS 64

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

static __attribute__((noinline)) __u64 fold(__u64 s)
{
	__u64 x = (s & 0xffff) + (s >> 16);

	x = (x & 0xffff) + (x >> 16);
	return ((x & 0xffff) + (x >> 16)) & 0xffff;
}

SEC("xdp")
int big_csum(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 34 > data_end)
		return XDP_PASS;
	if (*(__u16 *)(data + 12) != bpf_htons(0x0800))
		return XDP_PASS;
	__u8 *ip = data + 14;
	__u64 words = (ip[0] & 15) * 2, sum = 0;

	if (words < 10)
		return XDP_DROP;
	for (__u64 i = 0; i < words && i < 30; i++) {
		__u8 *w = ip + i * 2;

		/* without the barrier clang turns the bounds check into a trip count that the
		 * verifier cannot connect to the packet */
		barrier_var(w);
		if ((void *)(w + 2) > data_end)
			return XDP_DROP;
		sum += bpf_ntohs(*(__u16 *)w);
	}
	if (fold(sum) == 0xffff) {
		add(0, 1);
	} else {
		add(1, 1);
		return XDP_DROP;
	}
	if (ip[9] == 17) {
		__u8 *uh = ip + words * 2;

		if ((void *)(uh + 8) > data_end)
			return XDP_DROP;
		__u64 ulen = bpf_ntohs(*(__u16 *)(uh + 4));
		__u64 usum = bpf_ntohs(*(__u16 *)(ip + 12)) + bpf_ntohs(*(__u16 *)(ip + 14)) +
			     bpf_ntohs(*(__u16 *)(ip + 16)) + bpf_ntohs(*(__u16 *)(ip + 18)) + 17;

		if (*(__u16 *)(uh + 6) == 0) {
			add(4, 1);
		} else if (ulen > MAX_UDP_WORDS * 2) {
			add(7, 1);
		} else {
			usum += ulen;
			for (__u64 i = 0; i * 2 + 1 < ulen && i < MAX_UDP_WORDS; i++) {
				__u8 *w = uh + i * 2;

				barrier_var(w);
				if ((void *)(w + 2) > data_end)
					return XDP_DROP;
				usum += bpf_ntohs(*(__u16 *)w);
			}
			if (ulen & 1) {
				__u8 *w = uh + (ulen & 0xfffe);	/* ulen - 1, never negative */

				if ((void *)(w + 1) <= data_end)
					usum += (__u64)w[0] << 8;
			}
			if (fold(usum) == 0xffff)
				add(2, 1);
			else
				add(3, 1);
		}
	}
	__u8 ttl = ip[8];

	if (ttl <= 1) {
		add(5, 1);
		return XDP_DROP;
	}
	/* RFC 1624: HC' = ~(~HC + ~m + m'), m the 16-bit word holding the TTL */
	__u64 old = bpf_ntohs(*(__u16 *)(ip + 8));
	__u64 new = old - 0x100;
	__u64 hc = bpf_ntohs(*(__u16 *)(ip + 10));
	__u64 s = (~hc & 0xffff) + (~old & 0xffff) + new;

	ip[8] = ttl - 1;
	*(__u16 *)(ip + 10) = bpf_htons(~fold(s) & 0xffff);
	add(6, 1);
	return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
