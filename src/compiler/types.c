/* types.c — built-in integer types and C struct layout (natural alignment, as clang does),
 * or packed layout for defevent records. */
#include "types.h"
#include <string.h>
#include <strings.h>

/* The builtins, by index: a typedef names the entry it stands for. */
enum {
	B_UCHAR, B_SCHAR, B_CHAR, B_USHORT, B_SHORT, B_UINT, B_INT, B_ULONG, B_LONG, B_ULLONG, B_LLONG,
	B__BOOL, B__U8, B__S8, B__U16, B__S16, B__U32, B__S32, B__U64, B__S64,
	B_U8, B_U16, B_U32, B_U64, B_I8, B_I16, B_I32, B_I64,
	B_BE16, B_BE32, B_BE64, B_LE16, B_LE32, B_LE64, B_BOOL, B_KULONG, B_KSIZE, B_SIZE,
	B_PTR, B_IPV4, B_KSTACK, B_USTACK, B_BYTES16, B_IPV6, NBUILTINS
};

/* C's integers, described in BTF by their own names as clang writes them */
#define C_INT(i, nm, c, sz, sign) [i] = { .kind = KL_T_INT, .name = nm, .cname = c, .size = sz, .align = sz, \
					  .is_signed = sign }
/* a typedef of builtin u, as wide and as signed */
#define TD(i, nm, td, u, sz, sign) [i] = { .kind = KL_T_INT, .name = nm, .typedef_name = td, \
					   .under = &builtins[u], .size = sz, .align = sz, .is_signed = sign }

/* Shared by every compilation (and thread): const, so that a write through the non-const
 * pointers kl_type_builtin hands out faults instead of racing. The chains are the kernel's:
 * asm-generic/int-ll64.h (u32 -> __u32 -> unsigned int), linux/types.h (__be16, bool) and
 * posix_types.h (size_t). kiln's i8..i64 are the kernel's s8..s64 (the kernel has no i32),
 * so BTF names them s8..s64. */
static const struct kl_type builtins[NBUILTINS] = {
	C_INT(B_UCHAR, "unsigned-char", "unsigned char", 1, false),
	C_INT(B_SCHAR, "signed-char", "signed char", 1, true),
	/* clang describes plain char as signed for BPF, and so does kiln */
	[B_CHAR] = { .kind = KL_T_INT, .name = "char", .cname = "char", .size = 1, .align = 1, .is_signed = true,
		     .is_char = true },
	C_INT(B_USHORT, "unsigned-short", "unsigned short", 2, false),
	C_INT(B_SHORT, "short", "short", 2, true),
	C_INT(B_UINT, "unsigned-int", "unsigned int", 4, false),
	C_INT(B_INT, "int", "int", 4, true),
	C_INT(B_ULONG, "unsigned-long", "unsigned long", 8, false),
	C_INT(B_LONG, "long", "long", 8, true),
	C_INT(B_ULLONG, "unsigned-long-long", "unsigned long long", 8, false),
	C_INT(B_LLONG, "long-long", "long long", 8, true),
	[B__BOOL] = { .kind = KL_T_INT, .name = "_Bool", .cname = "_Bool", .size = 1, .align = 1, .is_bool = true },
	TD(B__U8, "__u8", "__u8", B_UCHAR, 1, false),
	TD(B__S8, "__s8", "__s8", B_SCHAR, 1, true),
	TD(B__U16, "__u16", "__u16", B_USHORT, 2, false),
	TD(B__S16, "__s16", "__s16", B_SHORT, 2, true),
	TD(B__U32, "__u32", "__u32", B_UINT, 4, false),
	TD(B__S32, "__s32", "__s32", B_INT, 4, true),
	TD(B__U64, "__u64", "__u64", B_ULLONG, 8, false),
	TD(B__S64, "__s64", "__s64", B_LLONG, 8, true),
	TD(B_U8, "u8", "u8", B__U8, 1, false),
	TD(B_U16, "u16", "u16", B__U16, 2, false),
	TD(B_U32, "u32", "u32", B__U32, 4, false),
	TD(B_U64, "u64", "u64", B__U64, 8, false),
	TD(B_I8, "i8", "s8", B__S8, 1, true),
	TD(B_I16, "i16", "s16", B__S16, 2, true),
	TD(B_I32, "i32", "s32", B__S32, 4, true),
	TD(B_I64, "i64", "s64", B__S64, 8, true),
	TD(B_BE16, "__be16", "__be16", B__U16, 2, false),
	TD(B_BE32, "__be32", "__be32", B__U32, 4, false),
	TD(B_BE64, "__be64", "__be64", B__U64, 8, false),
	TD(B_LE16, "__le16", "__le16", B__U16, 2, false),
	TD(B_LE32, "__le32", "__le32", B__U32, 4, false),
	TD(B_LE64, "__le64", "__le64", B__U64, 8, false),
	[B_BOOL] = { .kind = KL_T_INT, .name = "bool", .typedef_name = "bool", .under = &builtins[B__BOOL],
		     .size = 1, .align = 1 },
	TD(B_KULONG, "__kernel_ulong_t", "__kernel_ulong_t", B_ULONG, 8, false),
	TD(B_KSIZE, "__kernel_size_t", "__kernel_size_t", B_KULONG, 8, false),
	TD(B_SIZE, "size_t", "size_t", B_KSIZE, 8, false),
	[B_PTR] = { .kind = KL_T_PTR, .name = "ptr", .size = 8, .align = 8 },
	TD(B_IPV4, "ipv4", "ipv4_addr", B__U32, 4, false),
	TD(B_KSTACK, "kstack", "kstack_id", B__S32, 4, true),
	TD(B_USTACK, "ustack", "ustack_id", B__S32, 4, true),
	/* no name: what ipv6_addr names, __u8[16] (struct in6_addr's bytes) */
	[B_BYTES16] = { .kind = KL_T_ARRAY, .size = 16, .align = 1, .elem = (struct kl_type *)&builtins[B__U8],
			.count = 16 },
	[B_IPV6] = { .kind = KL_T_ARRAY, .name = "ipv6", .size = 16, .align = 1,
		     .elem = (struct kl_type *)&builtins[B__U8], .count = 16, .typedef_name = "ipv6_addr",
		     .under = &builtins[B_BYTES16] },
};

struct kl_type *kl_type_builtin(const char *name)
{
	for (size_t i = 0; i < NBUILTINS; i++)
		if (builtins[i].name && !strcmp(builtins[i].name, name))
			return (struct kl_type *)&builtins[i];
	/* C spells signed ones s8..s64 (clj-ebpf spells them as keywords), and an unsigned
	 * int as plain unsigned */
	static const struct { const char *alias; int b; } aliases[] = {
		{ "s8", B_I8 }, { "s16", B_I16 }, { "s32", B_I32 }, { "s64", B_I64 }, { "unsigned", B_UINT },
	};
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(aliases[i].alias, name))
			return (struct kl_type *)&builtins[aliases[i].b];
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

bool kl_type_scalar_layout(struct kl_arena *a, struct kl_scalar_field *f, uint32_t n, uint32_t *size)
{
	struct kl_type *st = kl_arena_new(a, struct kl_type);
	st->kind = KL_T_STRUCT;
	st->fields = kl_arena_array(a, struct kl_field, n ? n : 1);
	st->nfields = n;
	for (uint32_t i = 0; i < n; i++) {
		struct kl_type *t = kl_type_builtin(f[i].type);
		if (!t || t->kind != KL_T_INT)
			return false;
		st->fields[i].type = f[i].count ? kl_type_array(a, t, f[i].count) : t;
		f[i].size = t->size;
		f[i].is_signed = t->is_signed;
	}
	kl_type_layout(st);
	for (uint32_t i = 0; i < n; i++)
		f[i].offset = st->fields[i].offset;
	*size = st->size;
	return true;
}
