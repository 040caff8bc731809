// C twin of wh-fixes.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct ev { __u32 pid; __u8 comm[16]; __u32 x; };
struct k8 { __u32 a, b; };

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} m SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct k8);
	__type(value, __u64);
	__uint(max_entries, 4);
} m8 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} r SEC(".maps");

static __always_inline void set(__u32 k, __u64 v)
{
	bpf_map_update_elem(&r, &k, &v, BPF_ANY);
}

SEC("xdp")
int wh_fixes(struct xdp_md *ctx)
{
	__u64 k = 1, v = 2;
	__u32 k32 = 1;

	bpf_map_update_elem(&m, &k32, &v, 0);
	(void)k;
	__u64 k7 = 7;
	set(1, 99);
	set(0, k7);

	struct ev e = {}, f = {};
	__builtin_memset(e.comm, 0x41, 16);
	__builtin_memcpy(f.comm, &e, 8);
	set(2, e.comm[15] + *(__u32 *)f.comm);

	__u8 b = 54;
	b += 250;
	set(3, b);
	b += 250;
	set(4, b);

	/* the key's contents; clang would select between the two addresses with arithmetic the
	 * verifier refuses on pointers */
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct k8 key = { data_end > data + 40 ? 1 : 2, 0 };
	struct k8 *kp = &key;
	__u64 *c = bpf_map_lookup_elem(&m8, kp);
	if (c) {
		__sync_fetch_and_add(c, 1);
	} else {
		__u64 one = 1;
		bpf_map_update_elem(&m8, kp, &one, BPF_NOEXIST);
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
