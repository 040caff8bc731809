// C twin of wh-mem.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, 4);
	__uint(value_size, 64);
	__uint(max_entries, 32);
} bufs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, 4);
	__uint(value_size, 64);
	__uint(max_entries, 32);
} copies SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 24);
	__uint(max_entries, 2);
} cells SEC(".maps");

SEC("xdp")
int mm_ops(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 54 > data_end)
		return XDP_PASS;

	__u64 b64[8] = {}, c64[8] = {};
	__u8 *b = (__u8 *)b64, *c = (__u8 *)c64;
	__u8 v = *(__u8 *)(data + 22);
	__u32 len = data_end - data;

	__builtin_memset(b, 0xa5, 64);
	__builtin_memset(b + 1, 0x3c, 3);
	__builtin_memset(b + 5, v, 11);
	__builtin_memset(b + 17, (__u8)(v + 257), 13);
	b[33] = 0;
	__builtin_memset(b + 40, 0xff, 7);
	__builtin_memcpy(c + 3, data + 6, 13);
	__builtin_memcpy(c + 16, b + 1, 15);
	__builtin_memcpy(c + 35, data + 23, 11);
	__builtin_memcpy(c + 48, b + 40, 16);
	__builtin_memcpy(b + 50, c + 3, 9);
	bpf_map_update_elem(&bufs, &len, b, 0);
	bpf_map_update_elem(&copies, &len, c, 0);

	__u32 k = len & 1;
	__u8 *m = bpf_map_lookup_elem(&cells, &k);
	if (m)
		__builtin_memset(m + 3, *(__u8 *)(data + 47), 19);

	__builtin_memcpy(data, c + 3, 6);
	__builtin_memcpy(data + 7, b + 16, 5);
	__builtin_memset(data + 49, (__u8)(v + 1), 5);
	return c[8] + b[54];
}

char LICENSE[] SEC("license") = "GPL";
