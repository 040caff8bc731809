// C twin of sock-filter.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 32);
} by_proto SEC(".maps");

static __always_inline void map_add(void *map, __u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(map, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(map, &k, &d, BPF_NOEXIST);
}

SEC("socket")
int sock_filter(struct __sk_buff *skb)
{
	__u8 buf[20] = {};
	__u64 len = skb->len;

	map_add(&results, 0, len);
	if (bpf_ntohs(skb->protocol) == 0x0800) {
		long rc = bpf_skb_load_bytes(skb, 0, buf, 20);

		map_add(&results, 1, rc);
		if (rc == 0) {
			__u64 proto = buf[9];

			map_add(&by_proto, proto, 1);
			map_add(&results, 2, bpf_ntohs(*(__u16 *)(buf + 2)));
			if (proto == 6)
				return len;
			if (proto == 17)
				return 64;
			return 0;
		}
		return 0;
	}
	map_add(&results, 3, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
