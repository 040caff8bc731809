// C twin of wh-maps.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct fkey {
	__u32 saddr, daddr;
	__u16 sport, dport;
	__u8 proto;
};
struct fval {
	__u64 pkts, bytes;
};
struct hdr4 {
	__u8 b[20];
};
union anyhdr {
	struct fkey fkey;
	struct hdr4 hdr4;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct fkey);
	__type(value, struct fval);
	__uint(max_entries, 64);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, 16);
	__uint(value_size, 8);
	__uint(max_entries, 64);
} seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 4);
	__uint(max_entries, 4);
} jt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
}

static __always_inline __u64 get(void *map, void *k)
{
	__u64 *v = bpf_map_lookup_elem(map, k);

	return v ? *v : 0;
}

SEC("xdp")
int wh_maps(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct fkey k;
	union anyhdr u;

	__builtin_memset(&k, 0, sizeof(k));
	__builtin_memset(&u, 0, sizeof(u));
	if (data + 34 <= data_end && *(__u16 *)(data + 12) == bpf_htons(0x0800)) {
		void *ip = data + 14;
		__u64 len = bpf_ntohs(*(__u16 *)(ip + 2));

		k.saddr = *(__u32 *)(ip + 12);
		k.daddr = *(__u32 *)(ip + 16);
		k.proto = *(__u8 *)(ip + 9);
		struct fval *v = bpf_map_lookup_elem(&flows, &k);
		if (v) {
			__sync_fetch_and_add(&v->pkts, 1);
			__sync_fetch_and_add(&v->bytes, len);
		} else {
			struct fval nv = { 1, len };
			bpf_map_update_elem(&flows, &k, &nv, 0);
		}
		struct fval *p = bpf_map_lookup_elem(&flows, &k);
		if (p)
			add(0, p->pkts + p->bytes);
		__u64 *s = bpf_map_lookup_elem(&seen, &k);
		if (s) {
			__sync_fetch_and_add(s, 1);
		} else {
			__u64 one = 1;
			bpf_map_update_elem(&seen, &k, &one, BPF_NOEXIST);
		}
		add(1, get(&seen, &k));
		if (*(__u8 *)(ip + 9) == 17) {
			bpf_map_delete_elem(&flows, &k);
			bpf_map_delete_elem(&seen, &k);
		}
		__builtin_memcpy(u.hdr4.b, ip, 20);
		add(2, u.fkey.daddr);
		add(3, sizeof(union anyhdr));
		add(4, (void *)&k.dport - (void *)&k);
	}
	__u64 *e = bpf_ringbuf_reserve(&events, 16, 0);
	if (e) {
		e[0] = 1;
		e[1] = 2;
		add(5, 1);
		bpf_ringbuf_submit(e, 0);
	}
	bpf_ringbuf_output(&events, &k, sizeof(k), 0);
	add(6, 1);
	bpf_tail_call(ctx, &jt, 1);
	add(7, 1);
	__u32 r8 = 8;
	__u64 nv8 = get(&results, &r8) + 3;
	bpf_map_update_elem(&results, &r8, &nv8, 0);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
