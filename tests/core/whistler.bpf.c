/* whistler.bpf.c — clang twin of whistler.lisp (Whistler's kernel forms): the same reads
 * written as a C programmer writes them, BPF_CORE_READ, sizeof, a probe read at a relocated
 * offset, the tracepoint's context through vmlinux.h's preserve_access_index struct, and a
 * tp_btf argument dereferenced directly. */
#include "core.bpf.h"

SEC("tracepoint/syscalls/sys_enter_getppid")
int wh_task(void *ctx)
{
	if (!is_target())
		return 0;
	struct task_struct *task = (void *)bpf_get_current_task();
	char buf[16] = {};
	__u32 v = 0;
	put(0, BPF_CORE_READ(task, tgid));
	put(1, BPF_CORE_READ(task, pid));
	put(2, BPF_CORE_READ(task, real_parent, tgid));
	put(3, sizeof(struct task_struct));
	bpf_probe_read_kernel(&v, sizeof(v), (void *)task + bpf_core_field_offset(task->tgid));
	put(4, v);
	put(5, bpf_probe_read_kernel_str(buf, sizeof(buf), &task->comm));
	put(6, *(__u64 *)&buf[0]);
	put(7, *(__u64 *)&buf[8]);
	put(8, BPF_CORE_READ(task, pid));
	put(DONE, 1);
	return 0;
}

SEC("tracepoint/sock/inet_sock_set_state")
int wh_sock(struct trace_event_raw_inet_sock_set_state *ctx)
{
	if (ctx->protocol != IPPROTO_TCP || ctx->oldstate != 2 || ctx->newstate != 1 ||
	    ctx->dport != target_cfg(1))
		return 0;
	struct sock_common *sk = (void *)ctx->skaddr;
	put(10, BPF_CORE_READ(sk, skc_num));
	put(11, BPF_CORE_READ(sk, skc_dport));
	put(12, BPF_CORE_READ(sk, skc_rcv_saddr));
	put(13, BPF_CORE_READ(sk, skc_daddr));
	put(14, BPF_CORE_READ(sk, skc_family));
	put(15, ctx->sport);
	put(16, ctx->family);
	put(DONE, 1);
	return 0;
}

SEC("tp_btf/task_newtask")
int wh_newtask(__u64 *ctx)
{
	if ((__u32)(bpf_get_current_pid_tgid() >> 32) != target_cfg(2))
		return 0;
	struct task_struct *task = (void *)ctx[0];
	put(20, task->pid);
	put(21, task->tgid);
	put(22, (__u64)task->real_parent);
	put(23, 1);
	return 0;
}
