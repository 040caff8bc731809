/* enum.bpf.c — clang twin of enum.lisp: relocated constants (enum values, type and field
 * existence, sizes, offsets, the kernel's type id), written when the test's child calls
 * getppid. The ___mine flavours name what the kernel does not have. */
#include "core.bpf.h"

enum bpf_map_type___mine {
	BPF_MAP_TYPE_RINGBUF___mine = 1,
	BPF_MAP_TYPE_NO_SUCH_TYPE___mine = 2,
};

struct no_such_struct___mine {
	int x;
} __attribute__((preserve_access_index));

struct task_struct___fake {
	int tgid;
	int no_such_field;
} __attribute__((preserve_access_index));

SEC("tracepoint/syscalls/sys_enter_getppid")
int core_enum(void *ctx)
{
	if (!is_target())
		return 0;
	struct task_struct *task = 0;
	struct task_struct___fake *fake = 0;
	put(0, bpf_core_enum_value(enum bpf_map_type, BPF_MAP_TYPE_RINGBUF));
	put(1, bpf_core_enum_value_exists(enum bpf_map_type, BPF_MAP_TYPE_RINGBUF));
#ifndef KILN_CORE_BENCH   /* kiln has no local (flavour) enums: bench/core.sh leaves these out */
	put(2, bpf_core_enum_value_exists(enum bpf_map_type___mine, BPF_MAP_TYPE_NO_SUCH_TYPE___mine));
	put(3, bpf_core_enum_value(enum bpf_map_type___mine, BPF_MAP_TYPE_RINGBUF___mine));
#endif
	put(4, bpf_core_type_exists(struct task_struct));
	put(5, bpf_core_type_exists(struct no_such_struct___mine));
	put(6, bpf_core_type_size(struct task_struct));
	put(7, bpf_core_field_exists(task->tgid));
	put(8, bpf_core_field_exists(fake->no_such_field));
	put(9, bpf_core_field_size(task->comm));
	put(10, bpf_core_field_offset(task->tgid));
	put(11, bpf_core_type_id_kernel(struct task_struct));
	put(12, bpf_core_field_offset(task->se.nr_migrations));
	put(13, bpf_core_field_exists(fake->tgid));
	put(14, bpf_core_type_id_local(struct task_struct));   /* this object's own BTF id */
	put(15, __builtin_preserve_field_info(task->tgid, BPF_FIELD_SIGNED));
	put(16, __builtin_preserve_field_info(task->flags, BPF_FIELD_SIGNED));
	/* 17-19: core-type-matches, kiln's only: clang 14 cannot write type_matches records */
	put(DONE, 1);
	return 0;
}
