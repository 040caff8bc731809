/* prog_types.c — the kernel program-type and attach-section tables, expanded from
 * prog_types.def (whose defprog :type rows compiler/tables.c expands), and their lookups. */
#include "kfacts/prog_types.h"
#include <linux/pkt_cls.h>
#include <string.h>

static const struct kl_prog_kind prog_kinds[] = {
#define KERNEL_PROG(constant, ...) { .prog_type = constant, __VA_ARGS__ },
#define PROG_TYPE(keyword, constant, ...)
#define ATTACH_SECTION(pattern, ...)
#include "kfacts/prog_types.def"
#undef KERNEL_PROG
#undef PROG_TYPE
#undef ATTACH_SECTION
};

static const struct kl_attach_section attach_sections[] = {
#define KERNEL_PROG(constant, ...)
#define PROG_TYPE(keyword, constant, ...)
#define ATTACH_SECTION(p, how, ...) { .pattern = p, .kind = how, __VA_ARGS__ },
#include "kfacts/prog_types.def"
#undef KERNEL_PROG
#undef PROG_TYPE
#undef ATTACH_SECTION
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

bool kl_section_matches(const char *pattern, const char *section)
{
	size_t n = strlen(pattern);
	if (pattern[n - 1] == '/')
		return !strncmp(section, pattern, n) && section[n];
	if (pattern[n - 1] == '+')
		return !strncmp(section, pattern, n - 1) &&
		       (!section[n - 1] || (section[n - 1] == '/' && section[n]));
	return !strcmp(section, pattern);
}

const struct kl_attach_section *kl_attach_section_find(const char *section)
{
	for (size_t i = 0; section && i < sizeof(attach_sections) / sizeof(attach_sections[0]); i++)
		if (kl_section_matches(attach_sections[i].pattern, section))
			return &attach_sections[i];
	return NULL;
}
