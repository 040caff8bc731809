// C twin of uapi-names.lisp
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

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
	__uint(max_entries, 8);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} seen SEC(".maps");

static __always_inline void set(__u32 k, __u64 v)
{
	bpf_map_update_elem(&results, &k, &v, BPF_ANY);
}

SEC("tc")
int uapi_names(struct __sk_buff *skb)
{
	set(0, BPF_F_NO_PREALLOC);
	set(1, BPF_F_NO_COMMON_LRU);
	set(2, (__u64)(__s64)TC_ACT_UNSPEC);
	set(3, TC_ACT_PIPE);
	set(4, TC_ACT_REDIRECT);
	set(5, TC_ACT_RECLASSIFY);
	set(6, BPF_F_INGRESS);
	set(7, BPF_F_INDEX_MASK);
	set(8, BPF_F_RDONLY);
	set(9, BPF_F_WRONLY);

	__u32 k = skb->len;
	__u64 v = skb->protocol;
	__u32 slot = 10;
	__u64 rc = bpf_map_update_elem(&seen, &k, &v, BPF_NOEXIST);
	__u64 *r = bpf_map_lookup_elem(&results, &slot);

	if (r)
		__sync_fetch_and_add(r, rc);
	else
		bpf_map_update_elem(&results, &slot, &rc, BPF_NOEXIST);
	return skb->len > 100 ? TC_ACT_PIPE : TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
