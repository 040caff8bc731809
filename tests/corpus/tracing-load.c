// C twin of tracing-load.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* /sys/kernel/tracing/events/sched/sched_process_exec/format */
struct sched_process_exec_args {
	__u16 common_type;
	__u8 common_flags;
	__u8 common_preempt_count;
	__s32 common_pid;
	__u32 filename_loc;
	__s32 pid;
	__s32 old_pid;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 64);
} calls SEC(".maps");

static __always_inline void bump(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&calls, &k);
	__u64 one = 1;

	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&calls, &k, &one, BPF_NOEXIST);
}

SEC("tracepoint/sched/sched_process_exec")
int on_exec(struct sched_process_exec_args *ctx)
{
	bump(ctx->pid);
	return 0;
}

SEC("kprobe/do_sys_openat2")
int on_open(void *ctx)
{
	bump(2);
	return 0;
}

SEC("perf_event")
int on_sample(void *ctx)
{
	bump(3);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
