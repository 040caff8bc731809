/* flavour.bpf.c — clang twin of flavour.lisp: a local task_struct___mine whose fields stand
 * at offsets of its own (padding first, then the fields in another order than the kernel's):
 * libbpf relocates every access to the kernel's layout. */
#include "core.bpf.h"

struct task_struct___mine {
	__u64 pad0;
	struct task_struct___mine *real_parent;
	__u32 pad1;
	int tgid;
	int pid;
	__u8 pad2;
} __attribute__((preserve_access_index));

SEC("tracepoint/syscalls/sys_enter_getppid")
int core_flavour(void *ctx)
{
	if (!is_target())
		return 0;
	struct task_struct___mine *t = (void *)bpf_get_current_task();
	put(0, BPF_CORE_READ(t, tgid));
	put(1, BPF_CORE_READ(t, pid));
	put(2, BPF_CORE_READ(t, real_parent, tgid));
	put(3, BPF_CORE_READ(t, real_parent, real_parent, tgid));
	put(4, bpf_core_field_offset(t->tgid));
	put(DONE, 1);
	return 0;
}
