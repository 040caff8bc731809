/* ktypes.c — kernel struct members for kiln trace (ktypes.h), from the kernel's BTF. */
#include "trace/ktypes.h"
#include "compiler/kbtf.h"
#include "compiler/nearest.h"
#include <bpf/btf.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct btf *kernel_btf(char *msg, size_t len, const struct kl_kbtf **kout)
{
	char err[256] = "";
	const struct kl_kbtf *k = kl_kbtf_open(NULL, err, sizeof(err));
	if (!k) {
		snprintf(msg, len, "struct access needs the kernel's BTF: %s", err);
		return NULL;
	}
	*kout = k;
	return kl_kbtf_btf(k);
}

/* Anonymous structs and unions (struct in6_addr's in6_u) are named "#ID" by their BTF id, so
 * `.field` goes on through them. The kernel's BTF is read once per process, and so are these
 * names: one for every anonymous struct and union in it, made at the first need, in id order
 * (bsearch finds them). No script's state: the kernel's, for as long as its BTF. */
struct anon {
	uint32_t id;
	char name[12];              /* "#" and up to 10 digits */
};
static struct anon *anons;
static size_t nanons;
static pthread_once_t anons_once = PTHREAD_ONCE_INIT;

static void anons_make(void)
{
	char err[256];
	const struct kl_kbtf *k = kl_kbtf_open(NULL, err, sizeof(err));
	const struct btf *btf = k ? kl_kbtf_btf(k) : NULL;
	uint32_t n = btf ? btf__type_cnt(btf) : 0;
	for (int pass = 0; pass < 2; pass++) {
		size_t m = 0;
		for (uint32_t id = 1; id < n; id++) {
			const struct btf_type *t = btf__type_by_id(btf, id);
			if (!t || t->name_off || !(btf_is_struct(t) || btf_is_union(t)))
				continue;
			if (pass) {
				anons[m].id = id;
				snprintf(anons[m].name, sizeof(anons[m].name), "#%u", id);
			}
			m++;
		}
		if (!pass && !(anons = malloc((m ? m : 1) * sizeof(*anons))))
			return;
		nanons = m;
	}
}

static int anon_cmp(const void *key, const void *elem)
{
	uint32_t id = *(const uint32_t *)key, other = ((const struct anon *)elem)->id;
	return id < other ? -1 : id > other;
}

static const char *anon_name(uint32_t id)
{
	pthread_once(&anons_once, anons_make);
	const struct anon *a = anons ? bsearch(&id, anons, nanons, sizeof(*anons), anon_cmp) : NULL;
	return a ? a->name : NULL;
}

/* "the kernel has no WHAT 'name'" with the nearest names of the kinds into msg. */
static void not_found(const struct kl_kbtf *k, const char *name, int kinds, const char *what, char *msg, size_t len)
{
	struct kl_nearest nb;
	char hint[400];
	kl_nearest_init(&nb, name);
	kl_kbtf_nearest(k, &nb, kinds);
	kl_nearest_hint(&nb, hint, sizeof(hint));
	snprintf(msg, len, "the kernel has no %s '%s'%s%s", what, name, *hint ? "; " : "", hint);
}

static uint32_t struct_id(const struct kl_kbtf *k, const char *name, char *msg, size_t len)
{
	if (name[0] == '#')
		return (uint32_t)strtoul(name + 1, NULL, 10);
	uint32_t id = kl_kbtf_find(k, name, KL_KB_STRUCT);
	if (!id)
		not_found(k, name, KL_KB_STRUCT, "struct or union", msg, len);
	return id;
}

int kt_kstruct(const char *name, char *msg, size_t len)
{
	uint32_t size;
	return kt_ksizeof(name, &size, msg, len);
}

/* Member `name` of struct sid, looking into anonymous members; its type id, or 0. *bits
 * grows by its offset in bits. */
static uint32_t member_at(const struct btf *btf, uint32_t sid, const char *name, int depth, uint32_t *bits)
{
	const struct btf_type *t = btf__type_by_id(btf, sid);
	if (!t || depth > 8 || (!btf_is_struct(t) && !btf_is_union(t)))
		return 0;
	const struct btf_member *mb = btf_members(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		const char *mn = btf__name_by_offset(btf, mb[i].name_off);
		if (mn && *mn && !strcmp(mn, name)) {
			*bits += btf_member_bit_offset(t, i);
			return mb[i].type;
		}
		if (!mn || !*mn) {
			uint32_t inner_bits = 0;
			uint32_t inner = member_at(btf, (uint32_t)btf__resolve_type(btf, mb[i].type), name, depth + 1, &inner_bits);
			if (inner) {
				*bits += btf_member_bit_offset(t, i) + inner_bits;
				return inner;
			}
		}
	}
	return 0;
}

static uint32_t member(const struct btf *btf, uint32_t sid, const char *name, int depth)
{
	uint32_t bits = 0;
	return member_at(btf, sid, name, depth, &bits);
}

/* Skip typedefs, const, volatile and restrict. */
static uint32_t strip(const struct btf *btf, uint32_t id)
{
	for (int i = 0; i < 32; i++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!t || !(btf_is_typedef(t) || btf_is_const(t) || btf_is_volatile(t) || btf_is_restrict(t)))
			return id;
		id = t->type;
	}
	return id;
}

int kt_kenum(const char *name, int64_t *val)
{
	char err[256];
	const struct kl_kbtf *k = kl_kbtf_open(NULL, err, sizeof(err));
	const struct btf *btf = k ? kl_kbtf_btf(k) : NULL;
	uint32_t n = btf ? btf__type_cnt(btf) : 0;
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);
			for (uint16_t i = 0; i < btf_vlen(t); i++)
				if (!strcmp(btf__name_by_offset(btf, e[i].name_off), name)) {
					*val = btf_kflag(t) ? (int64_t)e[i].val : (int64_t)(uint32_t)e[i].val;
					return 0;
				}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);
			for (uint16_t i = 0; i < btf_vlen(t); i++)
				if (!strcmp(btf__name_by_offset(btf, e[i].name_off), name)) {
					*val = (int64_t)btf_enum64_value(e + i);
					return 0;
				}
		}
	}
	return -1;
}

/* The pointee of a pointer to an integer of size bytes (1, 2, 4, 8), shared. */
static struct kt_type *int_type(uint32_t size, bool sign)
{
	/* a constant table, written by no one (callers only read what a pointer points to) */
#define I(n, s) [n] = { .kind = KTT_INT, .size = n, .is_signed = s }
	static struct kt_type types[2][9] = {
		{ I(1, false), I(2, false), I(4, false), I(8, false) },
		{ I(1, true), I(2, true), I(4, true), I(8, true) },
	};
#undef I
	return &types[sign][size];
}

/* The kiln trace type of BTF type id (see kt_kfield); 0, or -1 when it has none. */
static int ktype_of(const struct btf *btf, uint32_t id, struct kt_type *out)
{
	id = strip(btf, id);
	const struct btf_type *t = btf__type_by_id(btf, id);
	*out = (struct kt_type){ .kind = KTT_INT, .size = 8 };
	if (!t)
		return -1;
	if (btf_is_int(t) || btf_is_any_enum(t)) {
		out->size = t->size;
		out->is_signed = btf_is_int(t) ? (btf_int_encoding(t) & BTF_INT_SIGNED) != 0 : btf_kflag(t);
		if (out->size == 1 || out->size == 2 || out->size == 4 || out->size == 8)
			return 0;
	} else if (btf_is_ptr(t)) {
		const struct btf_type *to = btf__type_by_id(btf, strip(btf, t->type));
		if (to && (btf_is_struct(to) || btf_is_union(to)) && to->name_off)
			out->tname = btf__name_by_offset(btf, to->name_off);
		else if (to && btf_is_ptr(to))   /* *p reads the pointer (8 bytes), an integer its size */
			out->pointee = int_type(8, false);
		else if (to && btf_is_int(to) && (to->size == 1 || to->size == 2 || to->size == 4 || to->size == 8))
			out->pointee = int_type(to->size, (btf_int_encoding(to) & BTF_INT_SIGNED) != 0);
		return 0;
	} else if ((btf_is_struct(t) || btf_is_union(t)) && (t->name_off || anon_name(id))) {
		*out = (struct kt_type){ .kind = KTT_STRUCT, .tname = t->name_off ? btf__name_by_offset(btf, t->name_off) : anon_name(id) };
		return 0;
	} else if (btf_is_array(t)) {
		const struct btf_array *ar = btf_array(t);
		const struct btf_type *e = btf__type_by_id(btf, strip(btf, ar->type));
		if (e && btf_is_int(e) && e->size == 1) {
			*out = (struct kt_type){ .kind = KTT_STR, .size = ar->nelems };
			return 0;
		}
		if (e && btf_is_int(e) && (e->size == 2 || e->size == 4 || e->size == 8) && ar->nelems) {
			/* the address of its first element, read with [i] */
			out->pointee = int_type(e->size, (btf_int_encoding(e) & BTF_INT_SIGNED) != 0);
			out->nelems = ar->nelems;
			return 0;
		}
	}
	return -1;
}

int kt_kfield(const char *sname, const char *field, struct kt_type *out, char *msg, size_t len)
{
	const struct kl_kbtf *k;
	const struct btf *btf = kernel_btf(msg, len, &k);
	if (!btf)
		return -1;
	uint32_t sid = struct_id(k, sname, msg, len);
	if (!sid)
		return -1;
	uint32_t mt = member(btf, sid, field, 0);
	if (!mt) {
		snprintf(msg, len, "struct %s has no field named %s", sname, field);
		return -1;
	}
	if (ktype_of(btf, mt, out) == 0)
		return 0;
	snprintf(msg, len, "the field %s of struct %s (neither an integer, a pointer, a named struct nor a char array) is not supported yet by kiln trace",
		 field, sname);
	return -1;
}

int kt_ksizeof(const char *sname, uint32_t *size, char *msg, size_t len)
{
	const struct kl_kbtf *k;
	const struct btf *btf = kernel_btf(msg, len, &k);
	uint32_t sid = btf ? struct_id(k, sname, msg, len) : 0;
	if (!sid)
		return -1;
	long n = btf__resolve_size(btf, sid);
	if (n < 0) {
		snprintf(msg, len, "the size of struct %s is not known", sname);
		return -1;
	}
	*size = (uint32_t)n;
	return 0;
}

int kt_koffsetof(const char *sname, const char *const *fields, uint32_t nfields, uint32_t *off, char *msg, size_t len)
{
	const struct kl_kbtf *k;
	const struct btf *btf = kernel_btf(msg, len, &k);
	uint32_t id = btf ? struct_id(k, sname, msg, len) : 0;
	if (!id)
		return -1;
	uint32_t bits = 0;
	for (uint32_t i = 0; i < nfields; i++) {
		uint32_t mt = member_at(btf, strip(btf, id), fields[i], 0, &bits);
		if (!mt) {
			snprintf(msg, len, "struct %s has no field named %s", sname, fields[i]);
			return -1;
		}
		id = mt;
	}
	*off = bits / 8;
	return 0;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

int kt_kfuncs(struct kl_arena *a, const char *glob, const char ***out, uint32_t *n, char *msg, size_t len)
{
	const struct kl_kbtf *k;
	const struct btf *btf = kernel_btf(msg, len, &k);
	*out = NULL;
	*n = 0;
	if (!btf)
		return -1;
	KL_VEC(const char *) v = { 0 };
	uint32_t cnt = btf__type_cnt(btf);
	for (uint32_t id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf_is_func(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
		if (name && *name && (!glob || !fnmatch(glob, name, 0)))
			kl_vec_push(a, &v, name);
	}
	if (v.len > 1)   /* (qsort of NULL, 0 is undefined) */
		qsort(v.items, v.len, sizeof(*v.items), cmp_str);
	uint32_t u = 0;
	for (size_t i = 0; i < v.len; i++)   /* a static function of several files: once */
		if (!u || strcmp(v.items[u - 1], v.items[i]))
			v.items[u++] = v.items[i];
	*out = v.items;
	*n = u;
	return 0;
}

int kt_kfunc_args(struct kl_arena *a, const char *func, struct kt_karg **args, uint32_t *n, struct kt_karg *ret,
		  char *msg, size_t len)
{
	const struct kl_kbtf *k;
	const struct btf *btf = kernel_btf(msg, len, &k);
	if (!btf)
		return -1;
	uint32_t id = kl_kbtf_find(k, func, KL_KB_FUNC);
	const struct btf_type *f = id ? btf__type_by_id(btf, id) : NULL;
	const struct btf_type *proto = f ? btf__type_by_id(btf, f->type) : NULL;
	if (!proto || !btf_is_func_proto(proto)) {
		not_found(k, func, KL_KB_FUNC, "function (in its BTF)", msg, len);
		return -1;
	}
	const struct btf_param *p = btf_params(proto);
	*n = btf_vlen(proto);
	*args = kl_arena_array(a, struct kt_karg, *n + 1);
	for (uint32_t i = 0; i < *n; i++) {
		const char *pn = btf__name_by_offset(btf, p[i].name_off);
		(*args)[i].name = pn && *pn ? pn : NULL;
		(*args)[i].ok = ktype_of(btf, p[i].type, &(*args)[i].type) == 0 && (*args)[i].type.kind == KTT_INT;
	}
	*ret = (struct kt_karg){ .name = "retval" };
	if (proto->type) {
		ret->ok = ktype_of(btf, proto->type, &ret->type) == 0 && ret->type.kind == KTT_INT;
	} else {
		ret->type.kind = KTT_NONE;
	}
	return 0;
}

int kt_raw_tracepoints(struct kl_arena *a, const char *glob, const char ***names, uint32_t **nargs, uint32_t *n,
		       char *msg, size_t len)
{
	const struct kl_kbtf *k;
	const struct btf *btf = kernel_btf(msg, len, &k);
	*n = 0;
	if (!btf)
		return -1;
	KL_VEC(const char *) v = { 0 };
	KL_VEC(uint32_t) c = { 0 };
	uint32_t cnt = btf__type_cnt(btf);
	for (uint32_t id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf_is_typedef(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
		if (!name || strncmp(name, "btf_trace_", 10) || (glob && fnmatch(glob, name + 10, 0)))
			continue;
		/* a pointer to a FUNC_PROTO whose first parameter is the tracepoint's void *__data */
		const struct btf_type *p = btf__type_by_id(btf, t->type);
		const struct btf_type *fp = p && btf_is_ptr(p) ? btf__type_by_id(btf, p->type) : NULL;
		uint32_t args = fp && btf_is_func_proto(fp) && btf_vlen(fp) ? btf_vlen(fp) - 1u : 0;
		kl_vec_push(a, &v, name + 10);
		kl_vec_push(a, &c, args);
	}
	*names = v.items;
	*nargs = c.items;
	*n = (uint32_t)v.len;
	return 0;
}
