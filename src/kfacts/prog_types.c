/* prog_types.c — the kernel program-type table, expanded from prog_types.def (whose defprog
 * :type rows compiler/tables.c expands), and its lookup. */
#include "kfacts/prog_types.h"
#include <linux/pkt_cls.h>

static const struct kl_prog_kind prog_kinds[] = {
#define KERNEL_PROG(constant, ...) { .prog_type = constant, __VA_ARGS__ },
#define PROG_TYPE(keyword, constant, ...)
#include "kfacts/prog_types.def"
#undef KERNEL_PROG
#undef PROG_TYPE
};

#define NKINDS (sizeof(prog_kinds) / sizeof(prog_kinds[0]))

const struct kl_prog_kind *kl_prog_kind_facts(uint32_t prog_type)
{
	static const struct kl_prog_kind none;
	for (size_t i = 0; i < NKINDS; i++)
		if (prog_kinds[i].prog_type == prog_type)
			return &prog_kinds[i];
	return &none;
}

const struct kl_prog_kind *kl_prog_kinds(size_t *n)
{
	*n = NKINDS;
	return prog_kinds;
}
