/* validate_btf.c — .BTF, .BTF.ext and .maps of an untrusted object, checked before libbpf
 * reads them (see validate.h). Every read is bounds-checked and goes through kv_u32/kv_u16,
 * so the image may sit at any alignment. Offsets in messages are from the section's start. */
#include "validate_btf.h"
#include "validate.h"
#include "validate_image.h"
#include "text.h"
#include <errno.h>
#include <linux/bpf.h>
#include <elf.h>
#include <linux/btf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BTF_HDR_SIZE 24u        /* magic, version, flags, hdr_len, 4 offsets and lengths */
#define BTF_TYPE_SIZE 12u       /* name_off, info, size/type */
#define MAX_TYPES 0xfffffu      /* the kernel's limit on the types of one BTF */

enum {
	NO_VLEN = 1,            /* vlen must be 0 */
	NO_KFLAG = 2,           /* kind_flag must be 0 */
	REF = 4,                /* the size/type word is a type id */
	NAMED = 8,              /* needs a non-empty name */
	CHAIN = 16,             /* PTR or a modifier: its type id is followed by libbpf's loops */
	VALUE = 32,             /* holds its type by value: a loop through these has no end */
	DECL = 64,              /* (a graph, not a kind's flag: see edge()) */
};

static const struct kind_row {
	const char *name;
	uint8_t extra;          /* bytes after the 12 common ones */
	uint8_t elem;           /* bytes per vlen entry */
	uint8_t flags;
} kinds[NR_BTF_KINDS] = {
	[BTF_KIND_INT] = { "INT", 4, 0, NO_VLEN | NO_KFLAG },
	[BTF_KIND_PTR] = { "PTR", 0, 0, NO_VLEN | NO_KFLAG | REF | CHAIN },
	[BTF_KIND_ARRAY] = { "ARRAY", 12, 0, NO_VLEN | NO_KFLAG },
	[BTF_KIND_STRUCT] = { "STRUCT", 0, 12, 0 },
	[BTF_KIND_UNION] = { "UNION", 0, 12, 0 },
	[BTF_KIND_ENUM] = { "ENUM", 0, 8, 0 },
	[BTF_KIND_FWD] = { "FWD", 0, 0, NO_VLEN | NAMED },
	[BTF_KIND_TYPEDEF] = { "TYPEDEF", 0, 0, NO_VLEN | NO_KFLAG | REF | NAMED | CHAIN | VALUE },
	[BTF_KIND_VOLATILE] = { "VOLATILE", 0, 0, NO_VLEN | NO_KFLAG | REF | CHAIN | VALUE },
	[BTF_KIND_CONST] = { "CONST", 0, 0, NO_VLEN | NO_KFLAG | REF | CHAIN | VALUE },
	[BTF_KIND_RESTRICT] = { "RESTRICT", 0, 0, NO_VLEN | NO_KFLAG | REF | CHAIN | VALUE },
	[BTF_KIND_FUNC] = { "FUNC", 0, 0, NO_KFLAG | REF | NAMED | VALUE },
	[BTF_KIND_FUNC_PROTO] = { "FUNC_PROTO", 0, 8, NO_KFLAG | REF },
	[BTF_KIND_VAR] = { "VAR", 4, 0, NO_VLEN | NO_KFLAG | REF | NAMED | VALUE },
	[BTF_KIND_DATASEC] = { "DATASEC", 0, 12, NO_KFLAG | NAMED },
	[BTF_KIND_FLOAT] = { "FLOAT", 0, 0, NO_VLEN | NO_KFLAG },
	[BTF_KIND_DECL_TAG] = { "DECL_TAG", 4, 0, NO_VLEN | REF | NAMED | VALUE },   /* kflag: an attribute */
	[BTF_KIND_TYPE_TAG] = { "TYPE_TAG", 0, 0, NO_VLEN | REF | NAMED | CHAIN | VALUE },
	[BTF_KIND_ENUM64] = { "ENUM64", 0, 12, 0 },
};

/* ---- reading types (only after the layout pass has put every type inside the section) -- */

static const uint8_t *type_at(const struct kv_btf *b, uint32_t id)
{
	return b->base + b->off[id];
}
static uint32_t t_name(const struct kv_btf *b, uint32_t id) { return kv_u32(type_at(b, id)); }
static uint32_t t_info(const struct kv_btf *b, uint32_t id) { return kv_u32(type_at(b, id) + 4); }
static uint32_t t_type(const struct kv_btf *b, uint32_t id) { return kv_u32(type_at(b, id) + 8); }
static unsigned t_kind(const struct kv_btf *b, uint32_t id) { return id ? (t_info(b, id) >> 24) & 0x1f : 0; }
static unsigned t_vlen(const struct kv_btf *b, uint32_t id) { return id ? t_info(b, id) & 0xffff : 0; }
/* The n-th u32 after the common part (entries included). */
static uint32_t t_word(const struct kv_btf *b, uint32_t id, size_t n)
{
	return kv_u32(type_at(b, id) + BTF_TYPE_SIZE + 4 * n);
}

static const char *str_at(const struct kv_btf *b, uint32_t off)
{
	return (const char *)b->base + b->hdr_len + b->str_off + off;
}

static const char *kind_name(unsigned kind)
{
	return kind < NR_BTF_KINDS && kinds[kind].name ? kinds[kind].name : "UNKNOWN";
}

static int tfail(const struct kv *v, uint32_t id, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int tfail(const struct kv *v, uint32_t id, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kv_fail(v, ".BTF", "type %u (%s) at offset 0x%x: %s", id, kind_name(t_kind(&v->btf, id)),
		       v->btf.off[id], msg);
}

/* A name's string offset: inside the string section (which ends in a NUL, so every offset
 * inside it starts a terminated string); and the name one kiln can print and generate code
 * from: no control byte, valid UTF-8 (the kernel takes far less: C identifiers, and section
 * names of printable ASCII). */
static int check_name(const struct kv *v, uint32_t id, uint32_t off, const char *what)
{
	if (off >= v->btf.str_len)
		return tfail(v, id, "%s at string offset %u is past the end of the strings (%u bytes)", what, off,
			     v->btf.str_len);
	const char *name = str_at(&v->btf, off);
	if (!kl_text_plain(name))
		return tfail(v, id, "%s '%s' holds a control byte or invalid UTF-8", what, name);
	return 0;
}

static int check_ref(const struct kv *v, uint32_t id, uint32_t ref, const char *what, bool void_ok)
{
	if (ref > v->btf.ntypes)
		return tfail(v, id, "%s refers to type %u, which does not exist (%u types)", what, ref,
			     v->btf.ntypes);
	if (!ref && !void_ok)
		return tfail(v, id, "%s refers to type 0 (void)", what);
	return 0;
}

/* ---- the header and the layout of the types ----------------------------------------------- */

static int check_header(struct kv *v)
{
	const struct kv_sec *s = &v->secs[v->btf_sec];
	struct kv_btf *b = &v->btf;
	b->base = v->img + s->off;
	if (s->size < BTF_HDR_SIZE || s->size > UINT32_MAX)
		return kv_fail(v, ".BTF", "%llu bytes, %s", (unsigned long long)s->size,
			       s->size > UINT32_MAX ? "more than 4 GB" : "shorter than the BTF header (24)");
	uint16_t magic = kv_u16(b->base);
	if (magic != BTF_MAGIC)
		return kv_fail(v, ".BTF", "magic 0x%04x at offset 0x0 is not 0x%04x%s", magic, BTF_MAGIC,
			       magic == 0x9feb ? " (BTF of the other byte order is not supported)" : "");
	if (b->base[2] != BTF_VERSION)
		return kv_fail(v, ".BTF", "version %u at offset 0x2 is not %u", b->base[2], BTF_VERSION);
	if (b->base[3])
		return kv_fail(v, ".BTF", "flags 0x%x at offset 0x3 are not 0", b->base[3]);
	b->hdr_len = kv_u32(b->base + 4);
	b->type_off = kv_u32(b->base + 8);
	b->type_len = kv_u32(b->base + 12);
	b->str_off = kv_u32(b->base + 16);
	b->str_len = kv_u32(b->base + 20);
	if (b->hdr_len < BTF_HDR_SIZE || b->hdr_len > s->size)
		return kv_fail(v, ".BTF", "header length %u at offset 0x4 is not between %u and the section's %llu bytes",
			       b->hdr_len, BTF_HDR_SIZE, (unsigned long long)s->size);
	for (uint32_t i = BTF_HDR_SIZE; i < b->hdr_len; i++)
		if (b->base[i])
			return kv_fail(v, ".BTF", "header byte at offset 0x%x is not 0 (an unknown header field)", i);
	uint64_t data = s->size - b->hdr_len;
	if (b->type_off % 4 || b->type_len % 4)
		return kv_fail(v, ".BTF", "type section (offset %u, length %u) is not 4-byte aligned", b->type_off,
			       b->type_len);
	if ((uint64_t)b->type_off + b->type_len > b->str_off)
		return kv_fail(v, ".BTF", "type section (offset %u, length %u) runs into the strings at %u",
			       b->type_off, b->type_len, b->str_off);
	if ((uint64_t)b->str_off + b->str_len > data)
		return kv_fail(v, ".BTF", "strings (offset %u, length %u) run past the end of the section (%llu bytes of data)",
			       b->str_off, b->str_len, (unsigned long long)data);
	const char *strs = str_at(b, 0);
	if (!b->str_len || b->str_len > 0x7fffffff || strs[0] || strs[b->str_len - 1])
		return kv_fail(v, ".BTF", "string section at offset 0x%x (%u bytes) does not start and end with a NUL",
			       b->hdr_len + b->str_off, b->str_len);
	return 0;
}

/* Where each type starts; its size from its kind and vlen, all inside the type section. */
static int layout(struct kv *v)
{
	struct kv_btf *b = &v->btf;
	uint32_t start = b->hdr_len + b->type_off, end = start + b->type_len;   /* inside 4 GB: checked */
	size_t max = b->type_len / BTF_TYPE_SIZE + 2;
	if (!(b->off = calloc(max, sizeof(*b->off))))
		return kv_fail(v, ".BTF", "no memory for %zu types", max);
	uint32_t n = 0;
	for (uint32_t at = start; at < end;) {
		if (end - at < BTF_TYPE_SIZE)
			return kv_fail(v, ".BTF", "type %u at offset 0x%x: %u bytes left, less than a type (%u)", n + 1, at,
				       end - at, BTF_TYPE_SIZE);
		if (n == MAX_TYPES)
			return kv_fail(v, ".BTF", "more than %u types", MAX_TYPES);
		uint32_t info = kv_u32(b->base + at + 4), kind = (info >> 24) & 0x1f, vlen = info & 0xffff;
		if (info & 0x60ff0000)
			return kv_fail(v, ".BTF", "type %u at offset 0x%x: unused bits set in info 0x%08x", n + 1, at, info);
		if (kind >= NR_BTF_KINDS || !kinds[kind].name)
			return kv_fail(v, ".BTF", "type %u at offset 0x%x: unknown kind %u", n + 1, at, kind);
		uint64_t sz = BTF_TYPE_SIZE + kinds[kind].extra + (uint64_t)vlen * kinds[kind].elem;
		if (sz > end - at)
			return kv_fail(v, ".BTF", "type %u (%s) at offset 0x%x: %llu bytes with %u entries, past the end of the types at 0x%x",
				       n + 1, kinds[kind].name, at, (unsigned long long)sz, vlen, end);
		b->off[++n] = at;
		at += (uint32_t)sz;
	}
	b->ntypes = n;
	return 0;
}

/* ---- each type's own fields ----------------------------------------------------------------- */

static bool pow2_in(uint32_t x, uint32_t max) { return x && x <= max && !(x & (x - 1)); }

static int check_int(const struct kv *v, uint32_t id)
{
	uint32_t size = t_type(&v->btf, id), w = t_word(&v->btf, id, 0);
	uint32_t enc = (w >> 24) & 0xf, off = (w >> 16) & 0xff, bits = w & 0xff;
	if (!pow2_in(size, 16))
		return tfail(v, id, "size %u is not 1, 2, 4, 8 or 16", size);
	if (w & 0xf000ff00 || (enc != 0 && enc != BTF_INT_SIGNED && enc != BTF_INT_CHAR && enc != BTF_INT_BOOL))
		return tfail(v, id, "encoding word 0x%08x is not valid", w);
	if (bits > 128 || bits + off > size * 8)
		return tfail(v, id, "%u bits at bit %u do not fit its %u bytes", bits, off, size);
	return 0;
}

static int check_members(const struct kv *v, uint32_t id)
{
	const struct kv_btf *b = &v->btf;
	uint32_t size = t_type(b, id);
	bool kflag = t_info(b, id) >> 31;
	char what[48];
	for (unsigned i = 0; i < t_vlen(b, id); i++) {
		uint32_t name = t_word(b, id, 3 * i), type = t_word(b, id, 3 * i + 1), off = t_word(b, id, 3 * i + 2);
		snprintf(what, sizeof(what), "member %u (at 0x%x)", i, b->off[id] + BTF_TYPE_SIZE + 12 * i);
		if (check_name(v, id, name, what) || check_ref(v, id, type, what, false))
			return -EINVAL;
		uint64_t bit = kflag ? off & 0xffffff : off;
		if (bit > (uint64_t)size * 8)
			return tfail(v, id, "member %u at bit %llu is past its size (%u bytes)", i, (unsigned long long)bit,
				     size);
	}
	return 0;
}

static int check_enum(const struct kv *v, uint32_t id)
{
	unsigned kind = t_kind(&v->btf, id), words = kind == BTF_KIND_ENUM64 ? 3 : 2;
	uint32_t size = t_type(&v->btf, id);
	if (!pow2_in(size, 8))
		return tfail(v, id, "size %u is not 1, 2, 4 or 8", size);
	for (unsigned i = 0; i < t_vlen(&v->btf, id); i++)
		if (check_name(v, id, t_word(&v->btf, id, words * i), "enumerator"))
			return -EINVAL;
	return 0;
}

static int check_array(const struct kv *v, uint32_t id)
{
	if (t_type(&v->btf, id))
		return tfail(v, id, "size %u is not 0", t_type(&v->btf, id));
	return check_ref(v, id, t_word(&v->btf, id, 0), "element type", false) ||
	       check_ref(v, id, t_word(&v->btf, id, 1), "index type", false) ? -EINVAL : 0;
}

static int check_proto(const struct kv *v, uint32_t id)
{
	char what[48];
	unsigned n = t_vlen(&v->btf, id);
	for (unsigned i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "parameter %u (at 0x%x)", i, v->btf.off[id] + BTF_TYPE_SIZE + 8 * i);
		/* only the last parameter may be void: "..." */
		if (check_name(v, id, t_word(&v->btf, id, 2 * i), what) ||
		    check_ref(v, id, t_word(&v->btf, id, 2 * i + 1), what, i == n - 1))
			return -EINVAL;
	}
	return 0;
}

static int check_func(const struct kv *v, uint32_t id)
{
	uint32_t proto = t_type(&v->btf, id);
	if (t_vlen(&v->btf, id) > BTF_FUNC_EXTERN)
		return tfail(v, id, "linkage %u is not static, global or extern", t_vlen(&v->btf, id));
	if (t_kind(&v->btf, proto) != BTF_KIND_FUNC_PROTO)
		return tfail(v, id, "type %u it refers to is a %s, not a FUNC_PROTO", proto,
			     kind_name(t_kind(&v->btf, proto)));
	return 0;
}

static int check_var(const struct kv *v, uint32_t id)
{
	uint32_t linkage = t_word(&v->btf, id, 0);
	if (linkage > BTF_VAR_GLOBAL_EXTERN)
		return tfail(v, id, "linkage %u is not static, global or extern", linkage);
	return 0;
}

static int check_datasec(const struct kv *v, uint32_t id)
{
	uint32_t size = t_type(&v->btf, id);
	for (unsigned i = 0; i < t_vlen(&v->btf, id); i++) {
		uint32_t type = t_word(&v->btf, id, 3 * i), off = t_word(&v->btf, id, 3 * i + 1),
			 sz = t_word(&v->btf, id, 3 * i + 2);
		char what[48];
		snprintf(what, sizeof(what), "variable %u (at 0x%x)", i, v->btf.off[id] + BTF_TYPE_SIZE + 12 * i);
		if (check_ref(v, id, type, what, false))
			return -EINVAL;
		unsigned k = t_kind(&v->btf, type);
		if (k != BTF_KIND_VAR && k != BTF_KIND_FUNC)
			return tfail(v, id, "variable %u is type %u, a %s, not a VAR", i, type, kind_name(k));
		if (size && (uint64_t)off + sz > size)
			return tfail(v, id, "variable %u (offset %u, size %u) runs past the section's %u bytes", i, off, sz,
				     size);
	}
	return 0;
}

static int check_float(const struct kv *v, uint32_t id)
{
	uint32_t size = t_type(&v->btf, id);
	if (size != 2 && size != 4 && size != 8 && size != 12 && size != 16)
		return tfail(v, id, "size %u is not 2, 4, 8, 12 or 16", size);
	return 0;
}

static int check_decl_tag(const struct kv *v, uint32_t id)
{
	uint32_t target = t_type(&v->btf, id), comp = t_word(&v->btf, id, 0);
	if (comp == UINT32_MAX)
		return 0;
	unsigned k = t_kind(&v->btf, target);
	uint32_t proto = k == BTF_KIND_FUNC ? t_type(&v->btf, target) : 0;   /* not checked yet: it may come later */
	uint32_t n = k == BTF_KIND_STRUCT || k == BTF_KIND_UNION ? t_vlen(&v->btf, target)
		   : proto <= v->btf.ntypes ? t_vlen(&v->btf, proto) : 0;
	if (comp >= n)
		return tfail(v, id, "component %u of type %u (a %s with %u) does not exist", comp, target, kind_name(k), n);
	return 0;
}

static int (*const checkers[NR_BTF_KINDS])(const struct kv *, uint32_t) = {
	[BTF_KIND_INT] = check_int,         [BTF_KIND_ARRAY] = check_array,
	[BTF_KIND_STRUCT] = check_members,  [BTF_KIND_UNION] = check_members,
	[BTF_KIND_ENUM] = check_enum,       [BTF_KIND_ENUM64] = check_enum,
	[BTF_KIND_FUNC] = check_func,       [BTF_KIND_FUNC_PROTO] = check_proto,
	[BTF_KIND_VAR] = check_var,         [BTF_KIND_DATASEC] = check_datasec,
	[BTF_KIND_FLOAT] = check_float,     [BTF_KIND_DECL_TAG] = check_decl_tag,
};

static int check_type(const struct kv *v, uint32_t id)
{
	const struct kv_btf *b = &v->btf;
	unsigned kind = t_kind(b, id);
	const struct kind_row *row = &kinds[kind];
	uint32_t info = t_info(b, id), name = t_name(b, id);
	if (check_name(v, id, name, "its name"))
		return -EINVAL;
	if (row->flags & NAMED && !*str_at(b, name))
		return tfail(v, id, "has no name");
	if (row->flags & NO_VLEN && info & 0xffff)
		return tfail(v, id, "vlen %u is not 0", info & 0xffff);
	if (row->flags & NO_KFLAG && info >> 31)
		return tfail(v, id, "kind_flag is set");
	bool void_ok = kind != BTF_KIND_FUNC && kind != BTF_KIND_VAR && kind != BTF_KIND_DECL_TAG;
	if (row->flags & REF && check_ref(v, id, t_type(b, id), "it", void_ok))
		return -EINVAL;
	return checkers[kind] ? checkers[kind](v, id) : 0;
}

/* ---- loops ----------------------------------------------------------------------------------- */

/* The k-th type id `id` leads to in one of two graphs, UINT32_MAX past the last: CHAIN (a PTR
 * or a modifier to what it points at: libbpf's skip loops follow these without a bound) or
 * VALUE (what a type holds by value: libbpf recurses through these for sizes and alignment,
 * and btf_dump through a function prototype's return and parameter types). */
static uint32_t edge(const struct kv_btf *b, uint32_t id, unsigned k, int graph)
{
	unsigned kind = t_kind(b, id);
	if (graph == CHAIN)
		return k == 0 && kinds[kind].flags & CHAIN ? t_type(b, id) : UINT32_MAX;
	if (graph == DECL) {   /* what writing id's C declaration writes inside it (btf_dump) */
		if (kind == BTF_KIND_PTR || kinds[kind].flags & VALUE)
			return k == 0 ? t_type(b, id) : UINT32_MAX;
		if (kind == BTF_KIND_ARRAY)
			return k == 0 ? t_word(b, id, 0) : UINT32_MAX;
		if (kind == BTF_KIND_FUNC_PROTO)
			return k == 0 ? t_type(b, id) : k <= t_vlen(b, id) ? t_word(b, id, 2 * (k - 1) + 1) : UINT32_MAX;
		/* a named struct or union is written by its name; an anonymous one in place */
		if ((kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION) && !t_name(b, id))
			return k < t_vlen(b, id) ? t_word(b, id, 3 * k + 1) : UINT32_MAX;
		return UINT32_MAX;
	}
	if (kinds[kind].flags & VALUE)
		return k == 0 ? t_type(b, id) : UINT32_MAX;
	if (kind == BTF_KIND_ARRAY)
		return k == 0 ? t_word(b, id, 0) : UINT32_MAX;
	if (kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION)
		return k < t_vlen(b, id) ? t_word(b, id, 3 * k + 1) : UINT32_MAX;
	if (kind == BTF_KIND_DATASEC)
		return k < t_vlen(b, id) ? t_word(b, id, 3 * k) : UINT32_MAX;
	if (kind == BTF_KIND_FUNC_PROTO)   /* its return type, then each parameter's (btf_dump's recursion) */
		return k == 0 ? t_type(b, id) : k <= t_vlen(b, id) ? t_word(b, id, 2 * (k - 1) + 1) : UINT32_MAX;
	return UINT32_MAX;
}

/* Depth-first, with an explicit stack (a million types must not overflow the C one). */
static int check_loops(const struct kv *v, int graph)
{
	const struct kv_btf *b = &v->btf;
	uint32_t n = b->ntypes;
	uint8_t *state = calloc(n + 1, 1);              /* 0 new, 1 on the path, 2 done */
	struct frame { uint32_t id, k; } *st = malloc((n + 1) * sizeof(*st));
	int err = 0;
	if (!state || !st) {
		err = kv_fail(v, ".BTF", "no memory to look for loops in %u types", n);
		goto out;
	}
	for (uint32_t root = 1; root <= n && !err; root++) {
		if (state[root])
			continue;
		size_t sp = 0;
		st[sp++] = (struct frame){ root, 0 };
		state[root] = 1;
		while (sp && !err) {
			struct frame *f = &st[sp - 1];
			uint32_t to = edge(b, f->id, f->k++, graph);
			if (to == UINT32_MAX) {
				state[f->id] = 2;
				sp--;
			} else if (to && state[to] == 1) {
				err = tfail(v, f->id, "refers to type %u, which leads back to type %u: a loop %s", to, f->id,
					    graph == CHAIN ? "of pointers and modifiers"
					    : graph == VALUE ? "of types held by value"
							     : "that no struct's name breaks (a C declaration without end)");
			} else if (to && !state[to]) {
				state[to] = 1;
				st[sp++] = (struct frame){ to, 0 };
			}
		}
	}
out:
	free(state);
	free(st);
	return err;
}

static uint32_t skip_mods(const struct kv_btf *b, uint32_t id)
{
	/* loops are gone (check_loops), so this ends */
	while (id && (kinds[t_kind(b, id)].flags & (CHAIN | VALUE)) == (CHAIN | VALUE))
		id = t_type(b, id);
	return id;
}

/* Where a type holds a value (a struct's or union's member, an array's element, a variable),
 * that value is data of a known size: not void, a forward declaration, a function, a
 * prototype, a variable, a section or a tag (a member typed as a prototype or a forward
 * declaration has no size, and btf_dump divides by its alignment). Run once loops
 * are known to be gone (skip_mods ends). */
static int check_data_types(const struct kv *v)
{
	const struct kv_btf *b = &v->btf;
	for (uint32_t id = 1; id <= b->ntypes; id++) {
		unsigned kind = t_kind(b, id), n = 0;
		if (kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION)
			n = t_vlen(b, id);
		else if (kind == BTF_KIND_ARRAY || kind == BTF_KIND_VAR)
			n = 1;
		for (unsigned i = 0; i < n; i++) {
			uint32_t held = kind == BTF_KIND_ARRAY ? t_word(b, id, 0)
					: kind == BTF_KIND_VAR ? t_type(b, id) : t_word(b, id, 3 * i + 1);
			uint32_t to = skip_mods(b, held);
			unsigned k = to ? t_kind(b, to) : BTF_KIND_UNKN;
			bool sized = kind != BTF_KIND_VAR;   /* (an extern variable may be void: a typeless ksym) */
			if ((sized && (k == BTF_KIND_UNKN || k == BTF_KIND_FWD)) || k == BTF_KIND_FUNC ||
			    k == BTF_KIND_FUNC_PROTO || k == BTF_KIND_VAR || k == BTF_KIND_DATASEC || k == BTF_KIND_DECL_TAG)
			{
				char what[32], is[32];
				snprintf(what, sizeof(what), "member %u", i);
				snprintf(is, sizeof(is), "a %s", k == BTF_KIND_FWD ? "forward declaration" : kind_name(k));
				return tfail(v, id, "%s holds type %u, %s, which is no value of a known size",
					     kind == BTF_KIND_ARRAY ? "its element" : kind == BTF_KIND_VAR ? "it" : what, held,
					     k == BTF_KIND_UNKN ? "void" : is);
			}
		}
	}
	return 0;
}

/* A DATASEC for a section of the file: it and every variable in it inside that section
 * (libbpf adds offsets and sizes in 32 bits, and copies from the section at them). */
static int check_datasec_in_elf(const struct kv *v, uint32_t id)
{
	size_t sec = kv_sec_by_name(v, str_at(&v->btf, t_name(&v->btf, id)));
	if (!sec)
		return 0;
	uint64_t elf_size = v->secs[sec].size;
	if (t_type(&v->btf, id) > elf_size)
		return tfail(v, id, "its size %u is more than section %s's %llu bytes", t_type(&v->btf, id),
			     v->secs[sec].name, (unsigned long long)elf_size);
	for (unsigned i = 0; i < t_vlen(&v->btf, id); i++) {
		uint32_t off = t_word(&v->btf, id, 3 * i + 1), sz = t_word(&v->btf, id, 3 * i + 2);
		uint32_t var = t_word(&v->btf, id, 3 * i), held = 0;
		if (t_kind(&v->btf, var) == BTF_KIND_VAR) {
			/* a struct is copied out at its own size (struct_ops), not the entry's */
			uint32_t t = skip_mods(&v->btf, t_type(&v->btf, var));
			unsigned k = t_kind(&v->btf, t);
			held = k == BTF_KIND_STRUCT || k == BTF_KIND_UNION ? t_type(&v->btf, t) : 0;
		}
		if ((uint64_t)off + sz > elf_size || (uint64_t)off + held > elf_size)
			return tfail(v, id, "variable %u (at 0x%x: offset %u, size %u, holding %u) runs past section %s's "
				     "%llu bytes", i, v->btf.off[id] + BTF_TYPE_SIZE + 12 * i, off, sz, held,
				     v->secs[sec].name, (unsigned long long)elf_size);
	}
	return 0;
}

int kv_btf_check(struct kv *v)
{
	int err = check_header(v);
	if (!err)
		err = layout(v);
	for (uint32_t id = 1; !err && id <= v->btf.ntypes; id++)
		err = check_type(v, id);
	if (!err)
		err = check_loops(v, CHAIN);
	if (!err)
		err = check_loops(v, VALUE);
	if (!err)
		err = check_loops(v, DECL);
	if (!err)
		err = check_data_types(v);
	for (uint32_t id = 1; !err && id <= v->btf.ntypes; id++)
		if (t_kind(&v->btf, id) == BTF_KIND_DATASEC)
			err = check_datasec_in_elf(v, id);
	return err;
}

int kl_btf_raw_validate(const void *raw, size_t size, const char *name)
{
	struct kv_sec secs[2] = { { .name = "" }, { .name = ".BTF", .size = size } };
	struct kv v = { .img = raw, .size = size, .obj = name ? name : "BTF", .nsecs = 2, .secs = secs, .btf_sec = 1 };
	int err = check_header(&v);
	if (!err)
		err = layout(&v);
	for (uint32_t id = 1; !err && id <= v.btf.ntypes; id++)
		err = check_type(&v, id);
	if (!err)
		err = check_loops(&v, CHAIN);
	if (!err)
		err = check_loops(&v, VALUE);
	if (!err)
		err = check_loops(&v, DECL);
	if (!err)
		err = check_data_types(&v);
	free(v.btf.off);
	return err;
}

/* ---- .BTF.ext ---------------------------------------------------------------------------- */

struct ext_part {
	const char *name;
	uint32_t hdr_at;        /* where its offset and length are in the .BTF.ext header */
	uint32_t min_rec;
	int (*record)(const struct kv *v, const uint8_t *rec, const char *where);
};

static int ext_type(const struct kv *v, uint32_t type, const char *where, unsigned want)
{
	if (type > v->btf.ntypes)
		return kv_fail(v, ".BTF.ext", "%s refers to type %u, which does not exist (%u types)", where, type,
			       v->btf.ntypes);
	if (want && t_kind(&v->btf, type) != want)
		return kv_fail(v, ".BTF.ext", "%s refers to type %u, a %s, not a %s", where, type,
			       kind_name(t_kind(&v->btf, type)), kind_name(want));
	return 0;
}

static int ext_str(const struct kv *v, uint32_t off, const char *where, const char *what)
{
	if (off >= v->btf.str_len)
		return kv_fail(v, ".BTF.ext", "%s: %s at string offset %u is past the end of .BTF's strings (%u bytes)",
			       where, what, off, v->btf.str_len);
	return 0;
}

static int func_record(const struct kv *v, const uint8_t *rec, const char *where)
{
	return ext_type(v, kv_u32(rec + 4), where, BTF_KIND_FUNC);
}

static int line_record(const struct kv *v, const uint8_t *rec, const char *where)
{
	return ext_str(v, kv_u32(rec + 4), where, "file name") || ext_str(v, kv_u32(rec + 8), where, "line text")
		       ? -EINVAL : 0;
}

static int core_record(const struct kv *v, const uint8_t *rec, const char *where)
{
	uint32_t kind = kv_u32(rec + 12);
	if (ext_type(v, kv_u32(rec + 4), where, 0) || ext_str(v, kv_u32(rec + 8), where, "access string"))
		return -EINVAL;
	if (kind > BPF_CORE_TYPE_MATCHES)
		return kv_fail(v, ".BTF.ext", "%s: unknown CO-RE relocation kind %u", where, kind);
	return 0;
}

static const struct ext_part parts[] = {
	{ "func_info", 8, 8, func_record },
	{ "line_info", 16, 16, line_record },
	{ "core_relo", 24, 16, core_record },
};

static int ext_part(const struct kv *v, const struct ext_part *p, uint32_t hdr_len)
{
	const struct kv_sec *s = &v->secs[v->ext_sec];
	const uint8_t *base = v->img + s->off;
	uint32_t off = kv_u32(base + p->hdr_at), len = kv_u32(base + p->hdr_at + 4);
	if (!len)
		return 0;
	uint64_t start = (uint64_t)hdr_len + off, end = start + len;
	if (off % 4 || end > s->size || len < 4)
		return kv_fail(v, ".BTF.ext", "%s (offset %u, length %u) is misaligned, too short or past the end (%llu bytes)",
			       p->name, off, len, (unsigned long long)s->size);
	uint32_t rec_size = kv_u32(base + start);
	if (rec_size < p->min_rec || rec_size % 4)
		return kv_fail(v, ".BTF.ext", "%s at offset 0x%llx: record size %u is not a multiple of 4 of at least %u",
			       p->name, (unsigned long long)start, rec_size, p->min_rec);
	if (len == 4)
		return kv_fail(v, ".BTF.ext", "%s at offset 0x%llx has no records", p->name, (unsigned long long)start);
	unsigned nsec = 0;
	for (uint64_t at = start + 4; at < end; nsec++) {
		char where[96];
		if (end - at < 8)
			return kv_fail(v, ".BTF.ext", "%s section %u at offset 0x%llx: header cut short", p->name, nsec,
				       (unsigned long long)at);
		uint32_t name = kv_u32(base + at), num = kv_u32(base + at + 4);
		snprintf(where, sizeof(where), "%s section %u at offset 0x%llx", p->name, nsec, (unsigned long long)at);
		if (ext_str(v, name, where, "section name"))
			return -EINVAL;
		const char *sname = str_at(&v->btf, name);
		size_t target = kv_sec_by_name(v, sname);
		if (!target || v->secs[target].type != SHT_PROGBITS || !(v->secs[target].flags & SHF_EXECINSTR))
			return kv_fail(v, ".BTF.ext", "%s names section '%s', which is not a code section of the object",
				       where, sname);
		if (!num || (uint64_t)num * rec_size > end - at - 8)
			return kv_fail(v, ".BTF.ext", "%s: %u records of %u bytes do not fit in what is left (%llu bytes)",
				       where, num, rec_size, (unsigned long long)(end - at - 8));
		at += 8;
		for (uint32_t r = 0; r < num; r++, at += rec_size) {
			uint32_t insn = kv_u32(base + at);
			snprintf(where, sizeof(where), "%s record %u of '%s' at offset 0x%llx", p->name, r, sname,
				 (unsigned long long)at);
			if (insn % 8 || insn >= v->secs[target].size)
				return kv_fail(v, ".BTF.ext", "%s: instruction offset %u is not inside the section (%llu bytes)",
					       where, insn, (unsigned long long)v->secs[target].size);
			if (p->record(v, base + at, where))
				return -EINVAL;
		}
	}
	return 0;
}

int kv_btf_ext_check(struct kv *v)
{
	const struct kv_sec *s = &v->secs[v->ext_sec];
	const uint8_t *base = v->img + s->off;
	if (!v->btf_sec)
		return kv_fail(v, ".BTF.ext", "there is no .BTF section for it to refer to");
	if (s->size < 8)
		return kv_fail(v, ".BTF.ext", "%llu bytes, shorter than its header", (unsigned long long)s->size);
	uint16_t magic = kv_u16(base);
	uint32_t hdr_len = kv_u32(base + 4);
	if (magic != BTF_MAGIC || base[2] != BTF_VERSION || base[3])
		return kv_fail(v, ".BTF.ext", "header at offset 0x0: magic 0x%04x, version %u, flags 0x%x (want 0x%04x, %u, 0)",
			       magic, base[2], base[3], BTF_MAGIC, BTF_VERSION);
	if (hdr_len < 24 || hdr_len > s->size)
		return kv_fail(v, ".BTF.ext", "header length %u at offset 0x4 is not between 24 and the section's %llu bytes",
			       hdr_len, (unsigned long long)s->size);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i].hdr_at + 8 <= hdr_len && ext_part(v, &parts[i], hdr_len))
			return -EINVAL;
	return 0;
}

/* ---- .maps: the map definitions as libbpf reads them ---------------------------------- */

/* The fields libbpf reads as numbers are pointers to arrays: `int (*type)[BPF_MAP_TYPE_HASH]` */
static const char *const int_fields[] = {
	"type", "max_entries", "map_flags", "numa_node", "key_size", "value_size", "pinning", "map_extra",
};

static int check_map(const struct kv *v, uint32_t sec_id, unsigned i)
{
	const struct kv_btf *b = &v->btf;
	uint32_t var = t_word(b, sec_id, 3 * i), off = t_word(b, sec_id, 3 * i + 1), sz = t_word(b, sec_id, 3 * i + 2);
	const char *name = str_at(b, t_name(b, var));
	uint64_t maps_size = v->secs[v->maps_sec].size;
	if (t_kind(b, var) != BTF_KIND_VAR)
		return 0;               /* a FUNC: libbpf refuses it with its own message */
	if ((uint64_t)off + sz > maps_size)
		return kv_fail(v, ".maps", "map '%s' (offset %u, size %u) runs past the section's %llu bytes", name, off, sz,
			       (unsigned long long)maps_size);
	uint32_t def = skip_mods(b, t_type(b, var));
	if (t_kind(b, def) != BTF_KIND_STRUCT)
		return kv_fail(v, ".maps", "map '%s': its definition (type %u) is a %s, not a STRUCT", name, def,
			       kind_name(t_kind(b, def)));
	if (t_type(b, def) > sz)
		return kv_fail(v, ".maps", "map '%s': its definition is %u bytes, more than its %u in the section", name,
			       t_type(b, def), sz);
	for (unsigned m = 0; m < t_vlen(b, def); m++) {
		const char *field = str_at(b, t_word(b, def, 3 * m));
		uint32_t ft = t_word(b, def, 3 * m + 1);
		bool as_int = false;
		for (size_t f = 0; f < sizeof(int_fields) / sizeof(int_fields[0]); f++)
			as_int |= !strcmp(field, int_fields[f]);
		if (as_int) {
			uint32_t p = skip_mods(b, ft);
			if (t_kind(b, p) != BTF_KIND_PTR || t_kind(b, t_type(b, p)) != BTF_KIND_ARRAY)
				return kv_fail(v, ".maps", "map '%s': field '%s' (type %u) is not a pointer to an array", name,
					       field, ft);
		} else if ((!strcmp(field, "key") || !strcmp(field, "value")) && t_kind(b, ft) != BTF_KIND_PTR) {
			return kv_fail(v, ".maps", "map '%s': field '%s' (type %u) is a %s, not a pointer", name, field, ft,
				       kind_name(t_kind(b, ft)));
		}
	}
	return 0;
}

int kv_maps_check(struct kv *v)
{
	const struct kv_btf *b = &v->btf;
	if (!v->maps_sec || !v->btf_sec)
		return 0;
	for (uint32_t id = 1; id <= b->ntypes; id++) {
		if (t_kind(b, id) != BTF_KIND_DATASEC || strcmp(str_at(b, t_name(b, id)), ".maps"))
			continue;
		for (unsigned i = 0; i < t_vlen(b, id); i++)
			if (check_map(v, id, i))
				return -EINVAL;
	}
	return 0;
}
