/* cstruct.c — the C structs a bpftrace script defines (cstruct.h): a small reader of C
 * struct and union definitions, their layout, and the lookups sema and gen make, the
 * script's structs before the kernel's. */
#include "trace/cstruct.h"
#include "trace/cdefine.h"
#include "trace/ktypes.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nesting of inline struct definitions; members of one struct; array dimensions */
enum { MAX_NEST = 8, MAX_MEMBERS = 1024, MAX_DIMS = 4 };

enum base { B_INT, B_STRUCT, B_VOID };

struct member {
	char *name;
	uint32_t off;
	enum base base;
	uint32_t bsize;             /* B_INT's bytes */
	bool sign;
	int sidx;                   /* B_STRUCT: the struct (its index), -1 when only pointed to */
	uint32_t ssize;             /* B_STRUCT: its size (0 when only pointed to) */
	char *sname;                /* B_STRUCT: its name (for a pointer, maybe not defined) */
	uint8_t ptrs;               /* levels of pointer */
	uint32_t count;             /* an array's elements (all dimensions), 0: not an array */
	struct kt_type pointee;     /* what kt_cs_field's pointer type points to */
};

struct cstruct {
	char *name;                 /* "%N" for an anonymous one */
	bool is_union;
	uint32_t size, align;
	struct member *m;
	uint32_t nm;
};

struct kt_cstructs {
	struct cstruct *s;
	uint32_t n, cap;
	uint32_t anon;              /* anonymous structs named so far */
};

/* ---- tokens ---- */

struct rd {
	const char *p, *end;
	const char *text;           /* the definition's first byte */
	const char *tok_at;         /* where the current token starts */
	size_t err_off;             /* the first error's token, from text */
	char tok[128];              /* the current token: a word, a number or one character */
	struct kt_cstructs *cs;
	char *msg;
	size_t msglen;
	int err;
};

static int rd_err(struct rd *r, const char *fmt, ...)
{
	if (!r->err) {
		r->err_off = (size_t)(r->tok_at - r->text);
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->msg, r->msglen, fmt, ap);
		va_end(ap);
	}
	r->err = -1;
	return -1;
}

static void skip_space(struct rd *r)
{
	for (;;) {
		while (r->p < r->end && isspace((unsigned char)*r->p))
			r->p++;
		if (r->end - r->p >= 2 && r->p[0] == '/' && r->p[1] == '/') {
			while (r->p < r->end && *r->p != '\n')
				r->p++;
		} else if (r->end - r->p >= 2 && r->p[0] == '/' && r->p[1] == '*') {
			const char *e = r->p + 2;
			while (e + 1 < r->end && !(e[0] == '*' && e[1] == '/'))
				e++;
			r->p = e + 1 < r->end ? e + 2 : r->end;
		} else {
			return;
		}
	}
}

/* Reads the next token into r->tok ("" at the end). */
static void next(struct rd *r)
{
	skip_space(r);
	r->tok_at = r->p;
	size_t n = 0;
	if (r->p < r->end && (isalnum((unsigned char)*r->p) || *r->p == '_')) {
		while (r->p < r->end && (isalnum((unsigned char)*r->p) || *r->p == '_')) {
			if (n + 1 < sizeof(r->tok))
				r->tok[n++] = *r->p;
			r->p++;
		}
	} else if (r->p < r->end) {
		r->tok[n++] = *r->p++;
	}
	r->tok[n] = 0;
}

static bool is(const struct rd *r, const char *t)
{
	return !strcmp(r->tok, t);
}

static bool accept(struct rd *r, const char *t)
{
	if (!is(r, t))
		return false;
	next(r);
	return true;
}

/* ---- types ---- */

static const struct { const char *name; uint8_t size; bool sign; } named_ints[] = {
	{ "int8_t", 1, true }, { "uint8_t", 1, false }, { "int16_t", 2, true }, { "uint16_t", 2, false },
	{ "int32_t", 4, true }, { "uint32_t", 4, false }, { "int64_t", 8, true }, { "uint64_t", 8, false },
	{ "u8", 1, false }, { "s8", 1, true }, { "u16", 2, false }, { "s16", 2, true }, { "u32", 4, false },
	{ "s32", 4, true }, { "u64", 8, false }, { "s64", 8, true }, { "__u8", 1, false }, { "__s8", 1, true },
	{ "__u16", 2, false }, { "__s16", 2, true }, { "__u32", 4, false }, { "__s32", 4, true },
	{ "__u64", 8, false }, { "__s64", 8, true }, { "size_t", 8, false }, { "ssize_t", 8, true },
	{ "uintptr_t", 8, false }, { "intptr_t", 8, true }, { "bool", 1, false }, { "_Bool", 1, false },
	{ "pid_t", 4, true }, { "uid_t", 4, false }, { "gid_t", 4, false }, { "int8", 1, true },
	{ "uint8", 1, false }, { "int16", 2, true }, { "uint16", 2, false }, { "int32", 4, true },
	{ "uint32", 4, false }, { "int64", 8, true }, { "uint64", 8, false },
};

/* Words of C's own integer types ("unsigned long long int") into *m; false if none. */
static bool c_int_words(struct rd *r, struct member *m)
{
	int longs = 0, size = 0;
	bool any = false, sign = true;
	for (;; next(r)) {
		if (is(r, "unsigned") || is(r, "signed"))
			sign = is(r, "signed");
		else if (is(r, "long"))
			longs++;
		else if (is(r, "short"))
			size = 2;
		else if (is(r, "char"))
			size = 1;
		else if (!is(r, "int"))
			break;
		any = true;
	}
	if (!any)
		return false;
	m->base = B_INT;
	m->bsize = size ? (uint32_t)size : longs ? 8 : 4;
	m->sign = sign;
	return true;
}

static int define_body(struct rd *r, const char *name, bool is_union, int depth);

static int find(const struct kt_cstructs *cs, const char *name)
{
	for (uint32_t i = 0; cs && i < cs->n; i++)
		if (!strcmp(cs->s[i].name, name))
			return (int)i;
	return -1;
}

/* struct|union [NAME] [{ ... }] as a member's type. */
static int struct_type(struct rd *r, struct member *m, int depth)
{
	bool is_union = is(r, "union");
	next(r);
	char name[128] = "";
	if (isalpha((unsigned char)r->tok[0]) || r->tok[0] == '_') {
		snprintf(name, sizeof(name), "%s", r->tok);
		next(r);
	}
	m->base = B_STRUCT;
	if (is(r, "{")) {
		if (!*name)
			snprintf(name, sizeof(name), "%%%u", ++r->cs->anon);
		if (define_body(r, name, is_union, depth + 1))
			return -1;
	} else if (!*name) {
		return rd_err(r, "a struct without a name or a body");
	}
	m->sidx = find(r->cs, name);
	m->ssize = m->sidx >= 0 ? r->cs->s[m->sidx].size : 0;
	m->sname = strdup(name);
	return 0;
}

/* A member's type, before its declarators. */
static int base_type(struct rd *r, struct member *m, int depth)
{
	while (accept(r, "const") || accept(r, "volatile"))
		;
	m->sidx = -1;
	if (is(r, "struct") || is(r, "union"))
		return struct_type(r, m, depth);
	if (accept(r, "void")) {
		m->base = B_VOID;
		return 0;
	}
	if (c_int_words(r, m))
		return 0;
	for (size_t i = 0; i < sizeof(named_ints) / sizeof(named_ints[0]); i++)
		if (is(r, named_ints[i].name)) {
			m->base = B_INT;
			m->bsize = named_ints[i].size;
			m->sign = named_ints[i].sign;
			next(r);
			return 0;
		}
	return rd_err(r, "the type '%s' in a struct definition is not known to kiln trace (C's integer types, "
		      "pointers, arrays and structs are)", r->tok);
}

static uint32_t elem_size(const struct kt_cstructs *cs, const struct member *m, uint32_t *align)
{
	if (m->ptrs || m->base == B_VOID) {
		*align = 8;
		return 8;
	}
	if (m->base == B_INT) {
		*align = m->bsize;
		return m->bsize;
	}
	*align = cs->s[m->sidx].align;
	return cs->s[m->sidx].size;
}

/* `*... NAME [N]...`: one declarator of a member whose type is in m. */
static int declarator(struct rd *r, struct member *m)
{
	while (accept(r, "*"))
		m->ptrs++;
	while (accept(r, "const") || accept(r, "volatile"))
		;
	if (!(isalpha((unsigned char)r->tok[0]) || r->tok[0] == '_'))
		return rd_err(r, "a member name expected in a struct definition, not '%s'", r->tok);
	m->name = strdup(r->tok);
	const char *name_at = r->tok_at;
	next(r);
	for (int d = 0; accept(r, "["); d++) {
		char *e;
		unsigned long n = strtoul(r->tok, &e, 0);
		if (*e || d == MAX_DIMS || n > (1u << 20))
			return rd_err(r, "array sizes in a struct definition are integers up to %u", 1u << 20);
		m->count = (m->count ? m->count : 1) * (uint32_t)n;
		next(r);
		if (!accept(r, "]"))
			return rd_err(r, "']' expected in a struct definition");
	}
	if ((m->base == B_VOID && !m->ptrs) || (m->base == B_STRUCT && !m->ptrs && m->sidx < 0))
		r->tok_at = name_at;   /* the error at the member */
	if (m->base == B_VOID && !m->ptrs)
		return rd_err(r, "the member %s is void", m->name);
	if (m->base == B_STRUCT && !m->ptrs && m->sidx < 0)
		return rd_err(r, "struct %s is used before the script defines it", m->sname);
	return 0;
}

/* Members until '}' (the last ';' may be missing), laid out into s. */
static int members(struct rd *r, struct cstruct *s, int depth)
{
	KL_VEC(struct member) v = { 0 };
	uint32_t off = 0;
	s->align = 1;
	while (!is(r, "}") && !r->err) {
		if (!*r->tok)
			return rd_err(r, "unterminated struct definition");
		struct member base = { 0 };
		if (base_type(r, &base, depth))
			break;
		do {
			struct member m = base;
			m.sname = base.sname ? strdup(base.sname) : NULL;
			if (declarator(r, &m) || v.len == MAX_MEMBERS) {
				free(m.name);
				free(m.sname);
				rd_err(r, "too many members in a struct");
				break;
			}
			uint32_t al, es = elem_size(r->cs, &m, &al);
			uint32_t sz = es * (m.count ? m.count : 1);
			off = s->is_union ? 0 : (off + al - 1) / al * al;
			m.off = off;
			off += sz;
			if (s->is_union && sz > s->size)
				s->size = sz;
			if (al > s->align)
				s->align = al;
			if (v.len == v.cap) {
				v.cap = v.cap ? 2 * v.cap : 8;
				v.items = realloc(v.items, v.cap * sizeof(*v.items));
			}
			v.items[v.len++] = m;
		} while (!r->err && accept(r, ","));
		free(base.sname);
		if (!r->err && !accept(r, ";") && !is(r, "}"))
			rd_err(r, "';' expected after the member of a struct definition, not '%s'", r->tok);
	}
	s->m = v.items;
	s->nm = (uint32_t)v.len;
	if (!s->is_union)
		s->size = off;
	s->size = (s->size + s->align - 1) / s->align * s->align;
	return r->err;
}

/* `{ members }` of struct name, added to the table (a later definition of a name replaces
 * nothing: the first wins, as cdefine's do). */
static int define_body(struct rd *r, const char *name, bool is_union, int depth)
{
	if (depth > MAX_NEST)
		return rd_err(r, "struct definitions nested more than %d deep", MAX_NEST);
	next(r);   /* past '{' */
	struct cstruct s = { .name = strdup(name), .is_union = is_union };
	int rc = members(r, &s, depth);
	if (!rc && !accept(r, "}"))
		rc = rd_err(r, "'}' expected to end struct %s", name);
	struct kt_cstructs *cs = r->cs;
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? 2 * cs->cap : 8;
		cs->s = realloc(cs->s, cs->cap * sizeof(*cs->s));
	}
	cs->s[cs->n++] = s;   /* kept even on an error: kt_cs_free frees it */
	return rc;
}

/* One top-level definition, r at its first token. */
static int define_top(struct kt_cstructs **cs, struct rd *r)
{
	if (is(r, "enum"))
		return 0;
	bool is_union = is(r, "union");
	next(r);
	char name[128];
	snprintf(name, sizeof(name), "%s", r->tok);
	if (!(isalpha((unsigned char)name[0]) || name[0] == '_'))
		return 0;   /* an anonymous definition at the top names nothing a script can use */
	next(r);
	if (!is(r, "{"))
		return rd_err(r, "'{' expected after struct %s", name);
	if (!*cs && !(*cs = calloc(1, sizeof(**cs))))
		return rd_err(r, "out of memory");
	r->cs = *cs;
	if (find(r->cs, name) >= 0)
		return rd_err(r, "struct %s is defined twice", name);
	return define_body(r, name, is_union, 0);
}

int kt_cs_define(struct kt_cstructs **cs, const char *text, size_t len, size_t *err_off, char *msg, size_t msglen)
{
	struct rd r = { .p = text, .end = text + len, .text = text, .tok_at = text, .msg = msg, .msglen = msglen };
	next(&r);
	int rc = define_top(cs, &r);
	*err_off = rc ? r.err_off : 0;
	return rc;
}

struct kl_span kt_cs_span(struct kl_span at, const char *text, size_t off)
{
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			at.line++;
			at.col = 1;
		} else {
			at.col++;
		}
	}
	return at;
}

void kt_cs_free(struct kt_cstructs *cs)
{
	if (!cs)
		return;
	for (uint32_t i = 0; i < cs->n; i++) {
		for (uint32_t k = 0; k < cs->s[i].nm; k++) {
			free(cs->s[i].m[k].name);
			free(cs->s[i].m[k].sname);
		}
		free(cs->s[i].m);
		free(cs->s[i].name);
	}
	free(cs->s);
	free(cs);
}

/* ---- lookups ---- */

static const struct cstruct *lookup(const struct kt_cdefs *c, const char *sname)
{
	int i = c && c->structs ? find(c->structs, sname) : -1;
	return i < 0 ? NULL : &c->structs->s[i];
}

bool kt_cs_has(const struct kt_cdefs *c, const char *sname)
{
	return sname && lookup(c, sname);
}

/* The type of m with ptrs levels of pointer (an array's element: m's own levels). A pointer
 * to a pointer reads 8 bytes with `*`, as the kernel's do (ktypes.c). */
static struct kt_type elem_type(struct member *m, uint8_t ptrs)
{
	struct kt_type t = { .kind = KTT_INT, .size = 8 };
	if (ptrs == 0) {
		if (m->base == B_INT)
			return (struct kt_type){ .kind = KTT_INT, .size = m->bsize, .is_signed = m->sign };
		return (struct kt_type){ .kind = KTT_STRUCT, .tname = m->sname, .size = m->ssize };
	}
	if (ptrs == 1 && m->base == B_STRUCT) {
		t.tname = m->sname;
	} else if (ptrs == 1 && m->base == B_INT) {
		m->pointee = (struct kt_type){ .kind = KTT_INT, .size = m->bsize, .is_signed = m->sign };
		t.pointee = &m->pointee;
	} else if (ptrs > 1) {
		m->pointee = (struct kt_type){ .kind = KTT_INT, .size = 8, .tname = ptrs == 2 && m->base == B_STRUCT ? m->sname : NULL };
		t.pointee = &m->pointee;
	}
	return t;
}

/* Member m's type as kt_cs_field gives it. */
static struct kt_type member_type(struct member *m)
{
	if (m->count && !m->ptrs && m->base == B_INT && m->bsize == 1)
		return (struct kt_type){ .kind = KTT_STR, .size = m->count + 1 };
	if (!m->count)
		return elem_type(m, m->ptrs);
	m->pointee = elem_type(m, m->ptrs);   /* the address of its first element, indexed with [i] */
	m->pointee.pointee = NULL;            /* an array of pointers: each read as 8 bytes */
	return (struct kt_type){ .kind = KTT_INT, .size = 8, .pointee = &m->pointee, .nelems = m->count };
}

int kt_cs_field(const struct kt_cdefs *c, const char *sname, const char *field, struct kt_type *out, uint32_t *off,
		char *msg, size_t len)
{
	const struct cstruct *s = lookup(c, sname);
	for (uint32_t i = 0; s && i < s->nm; i++) {
		struct member *m = &s->m[i];
		if (strcmp(m->name, field))
			continue;
		*off = m->off;
		*out = member_type(m);
		return 0;
	}
	snprintf(msg, len, "struct %s has no field named %s", s && s->name[0] == '%' ? "(anonymous)" : sname, field);
	return -1;
}

uint32_t kt_cs_size(const struct kt_cdefs *c, const char *sname)
{
	const struct cstruct *s = sname ? lookup(c, sname) : NULL;
	return s ? s->size : 0;
}

bool kt_cs_member(const struct kt_cdefs *c, const char *sname, uint32_t i, const char **name, struct kt_type *t,
		  uint32_t *off)
{
	const struct cstruct *s = sname ? lookup(c, sname) : NULL;
	if (!s || i >= s->nm)
		return false;
	*name = s->m[i].name;
	*off = s->m[i].off;
	*t = member_type(&s->m[i]);
	return true;
}

int kt_struct_exists(const struct kt_cdefs *c, const char *sname, char *msg, size_t len)
{
	return kt_cs_has(c, sname) ? 0 : kt_kstruct(sname, msg, len);
}

int kt_struct_field(const struct kt_cdefs *c, const char *sname, const char *field, struct kt_type *out, char *msg,
		    size_t len)
{
	uint32_t off;
	return kt_cs_has(c, sname) ? kt_cs_field(c, sname, field, out, &off, msg, len) : kt_kfield(sname, field, out, msg, len);
}

int kt_struct_sizeof(const struct kt_cdefs *c, const char *sname, uint32_t *size, char *msg, size_t len)
{
	const struct cstruct *s = lookup(c, sname);
	if (!s)
		return kt_ksizeof(sname, size, msg, len);
	*size = s->size;
	return 0;
}

int kt_struct_offsetof(const struct kt_cdefs *c, const char *sname, const char *const *fields, uint32_t nfields,
		       uint32_t *off, char *msg, size_t len)
{
	if (!kt_cs_has(c, sname))
		return kt_koffsetof(sname, fields, nfields, off, msg, len);
	*off = 0;
	const char *cur = sname;
	for (uint32_t i = 0; i < nfields; i++) {
		struct kt_type t;
		uint32_t o;
		if (!cur || kt_cs_field(c, cur, fields[i], &t, &o, msg, len))
			return cur ? -1 : (snprintf(msg, len, "%s is not a struct", fields[i - 1]), -1);
		*off += o;
		cur = t.kind == KTT_STRUCT && kt_cs_has(c, t.tname) ? t.tname : NULL;
	}
	return 0;
}
