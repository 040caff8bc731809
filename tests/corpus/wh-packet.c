// C twin of wh-packet.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} halves SEC(".maps");

struct scratch {
	__u64 a;
	__u8 b[12];
	__u32 c;
};

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
}

static __always_inline __u64 log2_64(__u64 x)
{
	__u64 r = 0;

	for (int sh = 32; sh >= 1; sh /= 2)
		if (x >> sh) {
			x >>= sh;
			r += sh;
		}
	return r;
}

SEC("xdp")
int wh_packet(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	add(0, 1);
	if (data + 54 > data_end)
		return XDP_PASS;               /* with-tcp's short-packet return */
	if (*(__u16 *)(data + 12) == bpf_htons(0x0800) && *(__u8 *)(data + 23) == 6) {
		__u16 dport = bpf_ntohs(*(__u16 *)(data + 36));

		add(1, dport);
		if ((*(__u8 *)(data + 47) & 0x12) == 0x02)
			add(2, 1);
		if (dport == 9999)
			return XDP_DROP;
	}
	if (data + 42 <= data_end && *(__u16 *)(data + 12) == bpf_htons(0x0800) &&
	    *(__u8 *)(data + 23) == 17) {
		void *udp = data + 34;

		add(3, (__u64)bpf_ntohs(*(__u16 *)(udp + 2)) + bpf_ntohs(*(__u16 *)(udp + 4)));
	}
	if (data + 34 <= data_end) {
		__u8 ttl = *(__u8 *)(data + 22);
		__s8 proto = *(__s8 *)(data + 23);
		__u16 type = bpf_ntohs(*(__u16 *)(data + 12));
		struct scratch s = {};

		ttl += 250;
		add(4, ttl);
		add(5, (__u64)(__s64)proto + 200);
		add(6, type == 0x0800 ? 1 : (type == 0x86dd || type == 0x0806) ? 2 : 3);
		__builtin_memset(&s.a, 0xab, 8);
		__builtin_memset(s.b, (__u8)(proto + 1), 7);
		__builtin_memcpy((void *)&s + 16, data + 6, 6);
		s.b[11] = 5;
		add(7, s.a + s.b[3] + s.b[11] + s.c);
		add(8, log2_64(s.a + *(__u16 *)(data + 12)));
		add(9, s.a >> 60);
		__u32 k = 0;
		__u64 *h = bpf_map_lookup_elem(&halves, &k);
		if (h)
			__sync_fetch_and_add((__u32 *)((void *)h + 4), (__u32)*(__u8 *)(data + 22));
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
