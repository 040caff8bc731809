// C twin of arp-reply.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define MY_IP  0x0a000002
#define MAC_HI 0x02000000
#define MAC_LO 0x00aa

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} results SEC(".maps");

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

#define U16(off) (*(__u16 *)(data + (off)))
#define U32(off) (*(__u32 *)(data + (off)))

SEC("xdp")
int arp_reply(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 42 > data_end)
		return XDP_PASS;
	if (!(U16(12) == bpf_htons(0x0806) && U16(14) == bpf_htons(1) &&
	      U16(16) == bpf_htons(0x0800) && U16(20) == bpf_htons(1))) {
		add(0, 1);
		return XDP_PASS;
	}
	if (U32(38) != bpf_htonl(MY_IP)) {
		add(1, 1);
		return XDP_PASS;
	}

	__u32 sha_hi = U32(22);
	__u16 sha_lo = U16(26);
	__u32 spa = U32(28);

	U32(0) = sha_hi;
	U16(4) = sha_lo;
	U32(6) = bpf_htonl(MAC_HI);
	U16(10) = bpf_htons(MAC_LO);
	U16(20) = bpf_htons(2);
	U32(22) = bpf_htonl(MAC_HI);
	U16(26) = bpf_htons(MAC_LO);
	U32(28) = bpf_htonl(MY_IP);
	U32(32) = sha_hi;
	U16(36) = sha_lo;
	U32(38) = spa;
	add(2, 1);
	add(3, bpf_ntohl(spa));
	return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
