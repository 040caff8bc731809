// C twin of upper-struct.lisp (wh-struct.c, its program renamed)
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct hist {
	__u32 count;
	__u16 slots[8];
	__u8 tag;
	__u8 bytes[5];
	__u64 total;
};

struct v4 {
	__u8 kind, ttl;
	__u16 len;
	__u32 src, dst;
};
struct v6 {
	__u8 kind, hop;
	__u16 plen;
	__u32 words[4];
};
union addr {
	struct v4 v4;
	struct v6 v6;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__uint(value_size, 40);
	__uint(max_entries, 32);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__uint(value_size, 20);
	__uint(max_entries, 32);
} addrs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 12);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
}

static __always_inline void set(__u32 k, __u64 d)
{
	bpf_map_update_elem(&results, &k, &d, 0);
}

SEC("xdp")
int upper_struct(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 54 > data_end)
		return XDP_PASS;

	struct hist h;
	__u64 ttl = *(__u8 *)(data + 22);
	__u32 len = data_end - data;
	__u64 dport = bpf_ntohs(*(__u16 *)(data + 36));

	__builtin_memset(&h, 0, sizeof(h));
	h.count = len;
	h.tag = *(__u8 *)(data + 47);
	h.slots[0] = dport;
	h.slots[7] = ttl + 1;
	h.slots[ttl & 7] = h.slots[ttl & 7] + 1000;
	h.slots[dport & 3] += 7;
	*(__u16 *)((void *)h.slots + 4) = 0x4242;
	bpf_xdp_load_bytes(ctx, 6, h.bytes, 5);
	h.bytes[4] += 3;
	for (int i = 0; i < 8; i++)
		h.total += (__u64)h.slots[i] * (i + 1);
	bpf_map_update_elem(&hists, &len, &h, 0);
	set(0, (void *)&h.total - (void *)&h);
	set(1, (void *)&h.bytes - (void *)&h);
	set(2, sizeof(struct hist));
	set(3, sizeof(union addr));

	for (int i = 0; i < 3; i++) {
		struct hist t2;

		__builtin_memset(&t2, 0, sizeof(t2));
		t2.tag += i + 1;
		t2.slots[i] += ttl;
		add(4, (__u64)t2.tag + t2.count + t2.slots[i] + t2.slots[2 - i]);
	}

	union addr u;
	struct v6 s;

	__builtin_memset(&u, 0, sizeof(u));
	__builtin_memset(&s, 0, sizeof(s));
	u.v4.kind = 4;
	u.v4.ttl = ttl;
	u.v4.len = bpf_ntohs(*(__u16 *)(data + 16));
	u.v4.src = *(__u32 *)(data + 26);
	u.v4.dst = *(__u32 *)(data + 30);
	u.v6.words[3] = u.v6.words[1] + 1;
	add(5, (__u64)u.v6.hop + u.v6.plen + u.v6.words[0]);
	s.kind = 6;
	s.words[dport & 3] = u.v4.dst;
	add(6, (__u64)s.kind + s.words[0] + s.words[1] + s.words[2] + s.words[3]);
	bpf_map_update_elem(&addrs, &len, &u, 0);
	return h.slots[1] + h.bytes[0];
}

char LICENSE[] SEC("license") = "GPL";
