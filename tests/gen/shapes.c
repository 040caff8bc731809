// C twin of shapes.lisp, for `kiln gen` on a clang object and for bpftool's skeleton of the
// same program (tests/suites/gen.sh compares the two skeletons' sizes).
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

struct inner {
	__s16 lo;
	__u8 hi;
	__u8 tags[3];
};

struct stats {
	__u64 calls;
	__s32 delta;
	struct inner in;
	__u32 hist[4];
	struct inner pair[2];
};

struct pid_key {
	__u32 pid;
	__u8 kind;
};

typedef __u32 ipv4_addr;

struct hit {
	__u32 pid;
	ipv4_addr addr;
	__s32 delta;
	__s8 small;
	char comm[16];
} __attribute__((packed));

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct pid_key);
	__type(value, struct stats);
	__uint(max_entries, 1024);
} by_pid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} hits SEC(".maps") __attribute__((btf_decl_tag("kiln.event:hit")));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} total SEC(".maps");

/* not inlined, so struct hit is in the BTF (by this function's prototype) */
static __attribute__((noinline)) int fill(struct hit *e, __u32 pid)
{
	e->pid = pid;
	e->addr = 0x0100007f;
	e->delta = -1;
	e->small = -2;
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_getpid")
int on_getpid(void *ctx)
{
	struct pid_key k = {};
	__u32 zero = 0;
	k.pid = bpf_get_current_pid_tgid() >> 32;
	k.kind = 1;
	__u64 *t = bpf_map_lookup_elem(&total, &zero);
	if (t)
		__sync_fetch_and_add(t, 1);
	struct stats *s = bpf_map_lookup_elem(&by_pid, &k);
	if (s) {
		s->calls++;
		s->delta--;
	} else {
		struct stats n = { .calls = 1, .delta = -1 };
		bpf_map_update_elem(&by_pid, &k, &n, BPF_ANY);
	}
	struct hit *e = bpf_ringbuf_reserve(&hits, sizeof(*e), 0);
	if (e) {
		fill(e, k.pid);
		bpf_ringbuf_submit(e, 0);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
