// C twin of cg-ingress.lisp
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
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} lens SEC(".maps");

static __always_inline void map_add(void *map, __u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(map, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(map, &k, &d, BPF_NOEXIST);
}

SEC("cgroup_skb/ingress")
int cg_ingress(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;

	if (data + 20 > data_end) {
		map_add(&results, 15, 1);
		return 1;
	}

	__u64 ver = *(__u8 *)data >> 4;
	__u64 ihl = (*(__u8 *)data & 15) * 4;
	__u64 proto = *(__u8 *)(data + 9);

	map_add(&results, proto & 15, 1);
	map_add(&lens, ver, skb->len);
	if (ver == 4 && proto == 17 && ihl >= 20) {
		void *udp = data + ihl;

		if (udp + 8 > data_end)
			return 1;
		return bpf_ntohs(*(__u16 *)(udp + 2)) == 9 ? 0 : 1;
	}
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
