// C twin of byteorder.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

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
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int byteorder(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 38 > data_end)
		return XDP_PASS;
	__u64 w16 = *(__u16 *)(data + 12);
	__u64 w32 = *(__u32 *)(data + 26);
	__u64 w64 = *(__u64 *)data;

	add(0, bpf_ntohs(w16));
	add(1, bpf_ntohl(w32));
	add(2, bpf_htons(w16));
	add(3, bpf_htonl(w32));
	add(4, __builtin_bswap16((__u16)w64));
	add(5, __builtin_bswap32((__u32)w64));
	add(6, __builtin_bswap64(w64));
	add(7, bpf_ntohs(bpf_ntohs(w16)));
	add(8, bpf_htonl(0x0a000001));
	add(9, bpf_ntohl((__u32)w64));
	add(10, bpf_ntohs((__u16)w64));
	if (bpf_ntohs(w16) == 0x0800) {
		add(11, bpf_ntohs(*(__u16 *)(data + 16)));
		add(12, bpf_ntohs(*(__u16 *)(data + 36)));
		if (w32 == bpf_htonl(0x0a000001))
			add(13, 1);
		if (bpf_ntohl(w32) == 0x0a000001)
			add(14, 1);
	}
	return (__u32)(bpf_ntohs(w16) + __builtin_bswap32(w32));
}

char LICENSE[] SEC("license") = "GPL";
