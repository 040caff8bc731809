/* types.c — built-in integer types and C struct layout (natural alignment, as clang does),
 * or packed layout for defevent records. */
#include "types.h"
#include <string.h>
#include <strings.h>

/* Shared by every compilation (and thread): const, so that a write through the non-const
 * pointers kl_type_builtin hands out faults instead of racing. */
static const struct kl_type builtins[] = {
	{ .kind = KL_T_INT, .name = "u8",  .size = 1, .align = 1 },
	{ .kind = KL_T_INT, .name = "u16", .size = 2, .align = 2 },
	{ .kind = KL_T_INT, .name = "u32", .size = 4, .align = 4 },
	{ .kind = KL_T_INT, .name = "u64", .size = 8, .align = 8 },
	{ .kind = KL_T_INT, .name = "i8",  .size = 1, .align = 1, .is_signed = true },
	{ .kind = KL_T_INT, .name = "i16", .size = 2, .align = 2, .is_signed = true },
	{ .kind = KL_T_INT, .name = "i32", .size = 4, .align = 4, .is_signed = true },
	{ .kind = KL_T_INT, .name = "i64", .size = 8, .align = 8, .is_signed = true },
	{ .kind = KL_T_INT, .name = "char", .size = 1, .align = 1, .is_signed = true, .is_char = true },
	{ .kind = KL_T_PTR, .name = "ptr", .size = 8, .align = 8 },
	{ .kind = KL_T_INT, .name = "ipv4", .size = 4, .align = 4, .typedef_name = "ipv4_addr" },
	{ .kind = KL_T_INT, .name = "kstack", .size = 4, .align = 4, .is_signed = true,
	  .typedef_name = "kstack_id" },
	{ .kind = KL_T_INT, .name = "ustack", .size = 4, .align = 4, .is_signed = true,
	  .typedef_name = "ustack_id" },
	{ .kind = KL_T_ARRAY, .name = "ipv6", .size = 16, .align = 1, .elem = (struct kl_type *)&builtins[0], .count = 16,
	  .typedef_name = "ipv6_addr" },
};

struct kl_type *kl_type_builtin(const char *name)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(builtins[i].name, name))
			return (struct kl_type *)&builtins[i];
	/* clj-ebpf spells them as keywords and C spells signed ones s8..s64 */
	static const struct { const char *alias, *name; } aliases[] = {
		{ "s8", "i8" }, { "s16", "i16" }, { "s32", "i32" }, { "s64", "i64" },
	};
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(aliases[i].alias, name))
			return kl_type_builtin(aliases[i].name);
	return NULL;
}

struct kl_type *kl_type_array(struct kl_arena *a, struct kl_type *elem, uint32_t count)
{
	struct kl_type *t = kl_arena_new(a, struct kl_type);
	t->kind = KL_T_ARRAY;
	t->elem = elem;
	t->count = count;
	t->size = elem->size * count;
	t->align = elem->align;
	return t;
}

struct kl_type *kl_type_sized(struct kl_arena *a, uint32_t size)
{
	switch (size) {
	case 1: return kl_type_builtin("u8");
	case 2: return kl_type_builtin("u16");
	case 4: return kl_type_builtin("u32");
	case 8: return kl_type_builtin("u64");
	default: return kl_type_array(a, kl_type_builtin("u8"), size);
	}
}

void kl_type_layout(struct kl_type *st)
{
	uint32_t off = 0, align = 1;
	for (uint32_t i = 0; i < st->nfields; i++) {
		struct kl_type *ft = st->fields[i].type;
		uint32_t fa = st->packed ? 1 : ft->align;
		if (st->is_union) {
			st->fields[i].offset = 0;
			if (ft->size > off)
				off = ft->size;
		} else {
			off = (off + fa - 1) / fa * fa;
			st->fields[i].offset = off;
			off += ft->size;
		}
		if (fa > align)
			align = fa;
	}
	st->align = align;
	st->size = (off + align - 1) / align * align;
}

/* The field spelled name, else one spelled so in another case: the source's names fold as Common
 * Lisp's reader folds them (defined Pid, read as pid), and a kernel struct's members, which
 * kiln's own never clash with, keep theirs. */
const struct kl_field *kl_type_field(const struct kl_type *st, const char *name)
{
	for (uint32_t i = 0; i < st->nfields; i++)
		if (!strcmp(st->fields[i].name, name))
			return &st->fields[i];
	for (uint32_t i = 0; i < st->nfields; i++)
		if (!strcasecmp(st->fields[i].name, name))
			return &st->fields[i];
	return NULL;
}
