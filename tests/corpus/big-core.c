// C twin of big-core.lisp: the same local view of task_struct, read with BPF_CORE_READ
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#define MAX_DEPTH 8

struct task_struct___big {
	int pid;
	int tgid;
	struct task_struct___big *real_parent;
	struct task_struct___big *group_leader;
	char comm[16];
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 10);
} results SEC(".maps");

static __always_inline void set(__u32 k, __u64 v)
{
	bpf_map_update_elem(&results, &k, &v, BPF_ANY);
}

SEC("raw_tp/sched_process_exec")
int big_core(void *ctx)
{
	struct task_struct___big *task = (void *)bpf_get_current_task();
	char comm[16] = {};
	__u64 depth = 0, tgids = 0, firsts = 0, done = 0;

	set(0, (__s64)BPF_CORE_READ(task, pid));
	set(1, (__s64)BPF_CORE_READ(task, tgid));
	set(2, (__s64)BPF_CORE_READ(task, group_leader, pid));
	set(5, (__s64)BPF_CORE_READ_STR_INTO(&comm, task, comm));
	set(3, *(__u64 *)&comm[0]);
	set(4, *(__u64 *)&comm[8]);
	struct task_struct___big *p = BPF_CORE_READ(task, real_parent);

	for (int i = 0; i < MAX_DEPTH; i++) {
		if (done == 0 && p) {
			depth++;
			tgids += (__s64)BPF_CORE_READ(p, tgid);
			firsts += (__s64)BPF_CORE_READ(p, comm[0]);
			if (BPF_CORE_READ(p, pid) == 1)
				done = 1;
			else
				p = BPF_CORE_READ(p, real_parent);
		}
	}
	set(6, depth);
	set(7, tgids);
	set(8, firsts);
	__u32 k = 9;
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
