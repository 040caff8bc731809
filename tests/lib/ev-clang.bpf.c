/* ev-clang.bpf.c — test_event's clang-built producer: the getppid() calls of one process as
 * events in a ring buffer, whose map names its record layout with the decl tag kiln writes
 * (kiln.event:NAME), and whose fields use kiln's typedefs for an address and a stack id. A
 * bitfield and a nested struct exercise the layouts clang makes and kiln does not. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

typedef __u32 ipv4_addr;
typedef __s32 kstack_id;

struct who {
	__u32 uid;
	__u16 port;
	__u16 _pad;
};

struct clang_event {
	__u32 pid;
	ipv4_addr addr;
	kstack_id kstack;
	__u32 small : 3;
	__u32 flag : 1;
	__u32 rest : 28;
	struct who who;
	char comm[16];
};

/* clang writes BTF only for types something global reaches: the usual trick */
const struct clang_event *clang_event_btf __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} clang_target SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} clang_events SEC(".maps") __attribute__((btf_decl_tag("kiln.event:clang_event")));

SEC("tracepoint/syscalls/sys_enter_getppid")
int clang_on_getppid(void *ctx)
{
	__u32 k = 0, pid = bpf_get_current_pid_tgid() >> 32;
	__u32 *want = bpf_map_lookup_elem(&clang_target, &k);
	if (!want || *want != pid)
		return 0;
	struct clang_event *e = bpf_ringbuf_reserve(&clang_events, sizeof(*e), 0);
	if (!e)
		return 0;
	e->pid = pid;
	e->addr = 0x0100a8c0;          /* 192.168.0.1 in network order */
	e->kstack = -14;               /* no stack: an error, as get_stackid returns */
	e->small = 5;
	e->flag = 1;
	e->rest = 1000;
	e->who.uid = 7;
	e->who.port = 8080;
	e->who._pad = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";
