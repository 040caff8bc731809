/* core.c — kernel types for CO-RE in one compilation. A kernel type becomes a projection: a
 * kl_type of the same kind, name and size whose members are added as the program names them
 * (members of anonymous structs and unions become direct members at their offsets: libbpf
 * matches local members by name and finds them again inside the target's anonymous ones).
 * Each relocation keeps its root type and access indexes; btf.c writes both. */
#define _GNU_SOURCE /* qsort_r */
#include "core.h"
#include "kbtf.h"
#include "names.h"
#include "nearest.h"
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct kl_core {
	const struct kl_kbtf *k;
	struct { uint32_t id; struct kl_type *t; } *memo;   /* kernel id -> projection */
	uint32_t memo_mask, memo_len;
	KL_VEC(struct kl_core_use) uses;
	KL_VEC(struct kl_kaccessor) accessors;
	struct kl_names accessor_index;
};

static struct kl_core *state(struct kl_comp *c)
{
	if (!c->core)
		c->core = kl_arena_new(c->a, struct kl_core);
	return c->core;
}

const struct kl_kbtf *kl_core_kernel(struct kl_comp *c, struct kl_span sp)
{
	struct kl_core *s = state(c);
	if (s->k)
		return s->k;
	char err[512];
	const char *path = c->btf_path ? c->btf_path : c->opts.btf_path;
	s->k = kl_kbtf_open(path, err, sizeof(err));
	if (!s->k)
		kl_error(c->d, c->btf_path ? c->btf_span : sp, "%s", err);
	return s->k;
}

/* C names have no dashes: task-struct is task_struct. */
static const char *c_name(struct kl_comp *c, const char *name)
{
	if (!strchr(name, '-'))
		return name;
	char *s = kl_arena_strdup(c->a, name);
	for (char *p = s; *p; p++)
		if (*p == '-')
			*p = '_';
	return s;
}

/* Where id is in the memo, or the empty slot it would take. */
static uint32_t memo_probe(const struct kl_core *s, uint32_t id)
{
	uint32_t h = (id * 2654435761u) & s->memo_mask;
	while (s->memo[h].id && s->memo[h].id != id)
		h = (h + 1) & s->memo_mask;
	return h;
}

static struct kl_type **memo_slot(struct kl_comp *c, uint32_t id)
{
	struct kl_core *s = state(c);
	if (2 * (s->memo_len + 1) > s->memo_mask + 1) {
		uint32_t cap = s->memo_mask ? 2 * (s->memo_mask + 1) : 64;
		__typeof__(s->memo) old = s->memo;
		uint32_t oldcap = s->memo_mask ? s->memo_mask + 1 : 0;
		s->memo = kl_arena_alloc(c->a, cap * sizeof(*s->memo));
		s->memo_mask = cap - 1;
		for (uint32_t i = 0; i < oldcap; i++)
			if (old[i].id)
				s->memo[memo_probe(s, old[i].id)] = old[i];
	}
	uint32_t h = memo_probe(s, id);
	if (!s->memo[h].id) {
		s->memo[h].id = id;
		s->memo_len++;
	}
	return &s->memo[h].t;
}

static uint32_t skip_mods(const struct btf *btf, uint32_t id)
{
	for (int guard = 0; guard < 64; guard++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!t)
			return 0;
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		default:
			return id;
		}
	}
	return 0;
}

static struct kl_type *int_type(struct kl_comp *c, const struct btf *btf, const struct btf_type *t)
{
	const char *name = btf__name_by_offset(btf, t->name_off);
	bool sign = btf_kind(t) == BTF_KIND_INT ? (btf_int_encoding(t) & BTF_INT_SIGNED) != 0
						: btf_kind(t) == BTF_KIND_FLOAT;
	static const char *const names[2][4] = { { "u8", "u16", "u32", "u64" }, { "i8", "i16", "i32", "i64" } };
	int k = t->size == 1 ? 0 : t->size == 2 ? 1 : t->size == 4 ? 2 : t->size == 8 ? 3 : -1;
	if (k < 0 || btf_kind(t) == BTF_KIND_FLOAT)
		return kl_type_sized(c->a, t->size);   /* __int128, floats: bytes */
	/* the kernel's name ("unsigned int"), which libbpf's type matching compares */
	struct kl_type *p = kl_arena_new(c->a, struct kl_type);
	*p = *kl_type_builtin(names[sign][k]);
	p->name = name;
	p->cname = NULL;            /* no typedef chain of kiln's: the kernel's INT itself */
	p->typedef_name = NULL;
	p->under = NULL;
	p->core = true;
	p->is_char = !strcmp(name, "char");
	return p;
}

struct kl_type *kl_core_project(struct kl_comp *c, uint32_t kid)
{
	const struct btf *btf = kl_kbtf_btf(state(c)->k);
	uint32_t id = skip_mods(btf, kid);
	if (!id)
		return NULL;
	struct kl_type **slot = memo_slot(c, id);
	if (*slot)
		return *slot;
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name = btf__name_by_offset(btf, t->name_off);
	struct kl_type *p = NULL;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
		p = int_type(c, btf, t);
		break;
	case BTF_KIND_PTR:
		p = kl_arena_new(c->a, struct kl_type);
		p->kind = KL_T_PTR;
		p->size = p->align = 8;
		*slot = p;     /* before the target: a pointer may lead back to itself */
		p->elem = kl_core_project(c, t->type);
		if (p->elem && p->elem->kind != KL_T_STRUCT && p->elem->kind != KL_T_INT &&
		    p->elem->kind != KL_T_PTR && p->elem->kind != KL_T_ENUM && p->elem->kind != KL_T_ARRAY)
			p->elem = NULL;
		return p;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		struct kl_type *elem = kl_core_project(c, a->type);
		if (!elem)
			elem = kl_type_builtin("u8");
		p = kl_type_array(c->a, elem, a->nelems);
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FWD:
		p = kl_arena_new(c->a, struct kl_type);
		p->kind = KL_T_STRUCT;
		p->name = *name ? name : NULL;
		p->size = btf_kind(t) == BTF_KIND_FWD ? 0 : t->size;
		p->align = 8;
		p->is_union = btf_kind(t) == BTF_KIND_UNION ||
			      (btf_kind(t) == BTF_KIND_FWD && btf_kflag(t));
		p->core = true;
		p->kid = id;
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		p = kl_arena_new(c->a, struct kl_type);
		p->kind = KL_T_ENUM;
		p->name = *name ? name : NULL;
		p->size = p->align = t->size;
		p->is_signed = btf_kflag(t);
		p->core = true;
		p->kid = id;
		break;
	default:
		return NULL;   /* void, functions */
	}
	*slot = p;
	return p;
}

static struct kl_type *local_struct(struct kl_comp *c, const char *name)
{
	struct kl_structdef *sd = kl_struct_lookup(c, name);
	if (!sd && !strchr(name, '_'))      /* written with dashes, declared with underscores */
		sd = kl_struct_lookup(c, c_name(c, name));
	return sd && sd->type->core ? sd->type : NULL;
}

struct kl_type *kl_core_type_try(struct kl_comp *c, const char *name, int kinds, struct kl_span sp)
{
	struct kl_type *t = (kinds & KL_KB_STRUCT) ? local_struct(c, name) : NULL;
	if (t)
		return t;
	const struct kl_kbtf *k = kl_core_kernel(c, sp);
	if (!k)
		return NULL;
	uint32_t id = kl_kbtf_find(k, name, kinds | KL_KB_TYPEDEF);
	if (!id)
		return NULL;
	t = kl_core_project(c, id);
	if (!t || ((kinds & KL_KB_STRUCT) && t->kind == KL_T_STRUCT) || ((kinds & KL_KB_ENUM) && t->kind == KL_T_ENUM))
		return t;
	return NULL;   /* a typedef of something else */
}

struct kl_type *kl_core_type(struct kl_comp *c, const char *name, int kinds, struct kl_span sp)
{
	struct kl_type *t = kl_core_type_try(c, name, kinds, sp);
	if (t || c->d->nerrors)
		return t;
	const struct kl_kbtf *k = state(c)->k;
	struct kl_nearest nb;
	char hint[400];
	kl_nearest_init(&nb, c_name(c, name));
	kl_kbtf_nearest(k, &nb, kinds);
	const char *what = kinds == KL_KB_ENUM ? "enum" : kinds == KL_KB_STRUCT ? "struct or union" : "type";
	kl_error(c->d, sp, "the kernel has no %s '%s' (in %s)%s%s", what, name, kl_kbtf_path(k),
		 *kl_nearest_hint(&nb, hint, sizeof(hint)) ? "; " : "", hint);
	return NULL;
}

/* Find member `name` of kernel struct sid, looking inside anonymous members; bit offset
 * from sid's start and the member's own spelling (fold: matched without regard to case). */
static bool find_member(const struct btf *btf, uint32_t sid, const char *name, bool fold, uint32_t base,
			uint32_t *bitoff, uint32_t *bitsize, uint32_t *type, const char **spelled, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, sid);
	if (!t || !btf_is_composite(t) || depth > 32)
		return false;
	const struct btf_member *m = btf_members(t);
	for (uint32_t i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		uint32_t off = base + btf_member_bit_offset(t, i);
		if (mn && *mn) {
			if (!(fold ? strcasecmp : strcmp)(mn, name)) {
				*spelled = mn;
				*bitoff = off;
				*bitsize = btf_member_bitfield_size(t, i);
				*type = m->type;
				return true;
			}
		} else if (find_member(btf, skip_mods(btf, m->type), name, fold, off, bitoff, bitsize, type, spelled,
				       depth + 1)) {
			return true;
		}
	}
	return false;
}

typedef KL_VEC(const char *) name_vec;

static void collect_names(struct kl_comp *c, const struct btf *btf, uint32_t sid, name_vec *out, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, sid);
	if (!t || !btf_is_composite(t) || depth > 32)
		return;
	const struct btf_member *m = btf_members(t);
	for (uint32_t i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		if (mn && *mn)
			kl_vec_push(c->a, out, mn);
		else
			collect_names(c, btf, skip_mods(btf, m->type), out, depth + 1);
	}
}

uint32_t kl_core_member_names(struct kl_comp *c, const struct kl_type *st, const char ***out)
{
	name_vec names = { 0 };
	if (st->kid)
		collect_names(c, kl_kbtf_btf(state(c)->k), st->kid, &names, 0);
	else
		for (uint32_t i = 0; i < st->nfields; i++)
			kl_vec_push(c->a, &names, st->fields[i].name);
	*out = names.items;
	return (uint32_t)names.len;
}

bool kl_core_kernel_opened(const struct kl_comp *c)
{
	return c->core && c->core->k;
}

static const char *type_label(const struct kl_type *st)
{
	return st->name ? st->name : "(anonymous)";
}

/* The index of the field spelled name or cn, or (fold) so spelled in another case; -1 if none. */
static int64_t known_field(const struct kl_type *st, const char *name, const char *cn, bool fold)
{
	int (*cmp)(const char *, const char *) = fold ? strcasecmp : strcmp;
	for (uint32_t i = 0; i < st->nfields; i++)
		if (!cmp(st->fields[i].name, name) || !cmp(st->fields[i].name, cn))
			return i;
	return -1;
}

/* A member as written first, then as Common Lisp would read it, in any case (PID is pid). */
int kl_core_member(struct kl_comp *c, struct kl_type *st, const char *name, struct kl_span sp, uint32_t *idx)
{
	const char *cn = c_name(c, name), *spelled = cn;
	int64_t known = known_field(st, name, cn, false);
	uint32_t bitoff, bitsize, type;
	bool found = false;
	for (int fold = 0; fold < 2 && known < 0 && !found; fold++) {
		if (fold)
			known = known_field(st, name, cn, true);
		found = known < 0 && st->kid &&
			find_member(kl_kbtf_btf(state(c)->k), st->kid, cn, fold, 0, &bitoff, &bitsize, &type, &spelled, 0);
	}
	if (known >= 0) {
		*idx = (uint32_t)known;
		return 0;
	}
	if (!found) {
		/* the nearest names: a local struct's fields, or all of the kernel struct's members */
		struct kl_nearest nb;
		char hint[400];
		const char **names;
		kl_nearest_init(&nb, cn);
		for (uint32_t i = 0, n = kl_core_member_names(c, st, &names); i < n; i++)
			kl_nearest_add(&nb, names[i]);
		kl_nearest_hint(&nb, hint, sizeof(hint));
		if (!st->kid)
			return kl_error(c->d, sp, "%s has no field '%s'%s%s", type_label(st), name, *hint ? "; " : "", hint);
		return kl_error(c->d, sp, "the kernel's %s %s has no field '%s'%s%s", st->is_union ? "union" : "struct",
				type_label(st), name, *hint ? "; " : "", hint);
	}
	if (st->nfields == st->fieldcap) {
		uint32_t cap = st->fieldcap ? 2 * st->fieldcap : 8;
		st->fields = kl_arena_grow(c->a, st->fields, st->fieldcap * sizeof(*st->fields), cap * sizeof(*st->fields));
		st->fieldcap = cap;
	}
	struct kl_field *f = &st->fields[st->nfields];
	f->name = kl_arena_strdup(c->a, spelled);   /* the kernel's: CO-RE matches members by name */
	f->type = kl_core_project(c, type);
	if (!f->type)
		f->type = kl_type_builtin("u64");     /* a function pointer's target: not followed */
	f->offset = bitoff / 8;
	f->bitoff = bitoff;
	f->bitsize = (uint8_t)bitsize;
	*idx = st->nfields++;
	return 0;
}

/* A value as written first, then in any case (tcp_established is TCP_ESTABLISHED). */
int kl_core_enumval(struct kl_comp *c, struct kl_type *et, const char *name, struct kl_span sp, uint32_t *idx)
{
	const char *cn = c_name(c, name), *spelled = cn;
	for (int fold = 0; fold < 2; fold++) {
		int (*cmp)(const char *, const char *) = fold ? strcasecmp : strcmp;
		for (uint32_t i = 0; i < et->nvals; i++)
			if (!cmp(et->vals[i].name, name) || !cmp(et->vals[i].name, cn)) {
				*idx = i;
				return 0;
			}
	}
	struct kl_nearest nb;
	char hint[400];
	kl_nearest_init(&nb, cn);
	const struct btf *btf = et->kid ? kl_kbtf_btf(state(c)->k) : NULL;
	const struct btf_type *t = btf ? btf__type_by_id(btf, et->kid) : NULL;
	bool found = false;
	int64_t value = 0;
	for (uint32_t i = 0; t && i < 2 * btf_vlen(t) && !found; i++) {
		bool fold = i >= btf_vlen(t);   /* a second pass without regard to case */
		const char *vn;
		int64_t v;
		if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t) + i % btf_vlen(t);
			vn = btf__name_by_offset(btf, e->name_off);
			v = (int64_t)btf_enum64_value(e);
		} else {
			const struct btf_enum *e = btf_enum(t) + i % btf_vlen(t);
			vn = btf__name_by_offset(btf, e->name_off);
			v = et->is_signed ? (int64_t)e->val : (int64_t)(uint32_t)e->val;
		}
		if (!(fold ? strcasecmp : strcmp)(vn, cn)) {
			found = true;
			value = v;
			spelled = vn;
		} else if (!fold) {
			kl_nearest_add(&nb, vn);
		}
	}
	if (!found) {
		kl_nearest_hint(&nb, hint, sizeof(hint));
		return kl_error(c->d, sp, "the kernel's enum %s has no value '%s'%s%s", type_label(et), name,
				*hint ? "; " : "", hint);
	}
	if (et->nvals == et->valcap) {
		uint32_t cap = et->valcap ? 2 * et->valcap : 8;
		et->vals = kl_arena_grow(c->a, et->vals, et->valcap * sizeof(*et->vals), cap * sizeof(*et->vals));
		et->valcap = cap;
	}
	et->vals[et->nvals].name = kl_arena_strdup(c->a, spelled);   /* the kernel's, which CO-RE matches */
	et->vals[et->nvals].value = value;
	*idx = et->nvals++;
	return 0;
}

uint32_t kl_core_reloc(struct kl_comp *c, const struct kl_type *type, const uint32_t *access,
		       uint32_t naccess, uint32_t kind)
{
	struct kl_core *s = state(c);
	struct kl_core_use u = { type, kl_arena_array(c->a, uint32_t, naccess ? naccess : 1), naccess, kind };
	memcpy(u.access, access, naccess * sizeof(*access));
	kl_vec_push(c->a, &s->uses, u);
	return (uint32_t)s->uses.len;
}

const struct kl_core_use *kl_core_get(const struct kl_comp *c, uint32_t core)
{
	return &c->core->uses.items[core - 1];
}

int64_t kl_core_field_value(uint32_t kind, uint32_t bitoff, const struct kl_field *f, const struct kl_type *t)
{
	uint32_t bitsize = f ? f->bitsize : 0, size = t->size, off;
	if (!bitsize) {
		off = bitoff / 8;
		bitsize = size * 8;
	} else {
		/* the smallest aligned load of the member's integer size or wider holding it */
		off = bitoff / 8 / size * size;
		while (bitoff + bitsize - off * 8 > size * 8 && size < 8) {
			size *= 2;
			off = bitoff / 8 / size * size;
		}
	}
	switch (kind) {
	case BPF_CORE_FIELD_BYTE_OFFSET: return off;
	case BPF_CORE_FIELD_BYTE_SIZE: return size;
	case BPF_CORE_FIELD_EXISTS: return 1;
	case BPF_CORE_FIELD_SIGNED: return t->is_signed && !t->is_char ? 1 : t->is_char;
	case BPF_CORE_FIELD_LSHIFT_U64: return 64 - (bitoff + bitsize - off * 8);
	case BPF_CORE_FIELD_RSHIFT_U64: return 64 - bitsize;
	default: return 0;
	}
}

void kl_core_add_accessor(struct kl_comp *c, const char *name, const char *st, const char *field,
			  const char *lisp)
{
	struct kl_core *s = state(c);
	struct kl_kaccessor a = { name, st, field, lisp };
	kl_vec_push(c->a, &s->accessors, a);
	kl_names_put(c->a, &s->accessor_index, name, (uint32_t)s->accessors.len - 1);
}

const struct kl_kaccessor *kl_core_find_accessor(const struct kl_comp *c, const char *name)
{
	if (!c->core || !c->core->accessors.len)
		return NULL;
	int64_t i = kl_names_get(&c->core->accessor_index, name);
	return i < 0 ? NULL : &c->core->accessors.items[i];
}

static int by_offset(const void *x, const void *y, void *arg)
{
	const struct kl_field *f = arg;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	uint32_t a = f[i].bitsize ? f[i].bitoff : f[i].offset * 8, b = f[j].bitsize ? f[j].bitoff : f[j].offset * 8;
	return a != b ? (a > b) - (a < b) : (i > j) - (i < j);
}

void kl_core_finish(struct kl_comp *c)
{
	struct kl_core *s = c->core;
	if (!s || !s->memo)
		return;
	/* new index of each old member, per projection, kept in the type's place in the memo */
	uint32_t **renum = kl_arena_array(c->a, uint32_t *, s->memo_mask + 1);
	for (uint32_t h = 0; h <= s->memo_mask; h++) {
		struct kl_type *t = s->memo[h].t;
		if (!s->memo[h].id || !t || t->kind != KL_T_STRUCT || !t->kid || t->nfields < 2)
			continue;
		uint32_t n = t->nfields, *order = kl_arena_array(c->a, uint32_t, n);
		for (uint32_t i = 0; i < n; i++)
			order[i] = i;
		qsort_r(order, n, sizeof(*order), by_offset, t->fields);
		struct kl_field *sorted = kl_arena_array(c->a, struct kl_field, n);
		renum[h] = kl_arena_array(c->a, uint32_t, n);
		for (uint32_t r = 0; r < n; r++) {
			sorted[r] = t->fields[order[r]];
			renum[h][order[r]] = r;
		}
		memcpy(t->fields, sorted, n * sizeof(*sorted));
	}
	for (size_t u = 0; u < s->uses.len; u++) {
		struct kl_core_use *use = &s->uses.items[u];
		if (use->kind > BPF_CORE_FIELD_RSHIFT_U64)
			continue;         /* type and enum relocations index no members */
		const struct kl_type *t = use->type;
		for (uint32_t a = 1; a < use->naccess && t; a++) {
			uint32_t x = use->access[a];
			if (t->kind == KL_T_ARRAY) {
				t = t->elem;
				continue;
			}
			if (t->kind != KL_T_STRUCT || x >= t->nfields)
				break;
			if (t->kid) {
				uint32_t h = memo_probe(s, t->kid);
				if (renum[h])
					x = use->access[a] = renum[h][x];
			}
			t = t->fields[x].type;
		}
	}
}
