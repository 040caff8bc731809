/* task.bpf.c — clang twin of task.lisp: the current task of the test's child (its comm set
 * with PR_SET_NAME, its oom_score_adj set to 321 by the test) read with BPF_CORE_READ. */
#include "core.bpf.h"

SEC("tracepoint/syscalls/sys_enter_getppid")
int core_task(void *ctx)
{
	if (!is_target())
		return 0;
	struct task_struct *task = (void *)bpf_get_current_task();
	put(0, BPF_CORE_READ(task, tgid));
	put(1, BPF_CORE_READ(task, pid));
	put(2, BPF_CORE_READ(task, real_parent, tgid));
	put(3, BPF_CORE_READ(task, real_parent, real_parent, tgid));
	put(4, BPF_CORE_READ(task, real_parent, real_parent, real_parent, tgid));
	put(5, BPF_CORE_READ(task, se.nr_migrations));
	char buf[16] = {};
	put(6, BPF_CORE_READ_STR_INTO(&buf, task, comm));
	put(7, *(__u64 *)&buf[0]);
	put(8, *(__u64 *)&buf[8]);
	char buf2[16] = {};
	put(9, bpf_core_read(&buf2, sizeof(task->comm), &task->comm));
	put(10, *(__u64 *)&buf2[0]);
	put(11, *(__u64 *)&buf2[8]);
	put(12, BPF_CORE_READ(task, signal, oom_score_adj));   /* a short */
	put(13, BPF_CORE_READ(task, group_leader, pid));
	/* a char * at the end of a chain through pointers, embedded structs and an anonymous
	 * union (qstr's hash_len): the string it points at */
	char exe[16] = {};
	const unsigned char *name = BPF_CORE_READ(task, mm, exe_file, f_path.dentry, d_name.name);
	put(14, bpf_probe_read_kernel_str(&exe, sizeof(exe), name));
	put(15, *(__u64 *)&exe[0]);
	put(16, *(__u64 *)&exe[8]);
	/* an index in the chain: signal->rlim[RLIMIT_NOFILE], set by the test with prlimit */
	put(17, BPF_CORE_READ(task, signal, rlim[7].rlim_cur));
	struct rlimit lim = {};
	put(18, BPF_CORE_READ_INTO(&lim, task, signal, rlim[7]));
	put(19, lim.rlim_cur);
	put(20, lim.rlim_max);
	put(21, BPF_CORE_READ(task, comm[3]));
	put(DONE, 1);
	return 0;
}
