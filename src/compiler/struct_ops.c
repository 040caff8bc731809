/* struct_ops.c — defstruct-ops: a kernel struct of operations filled with :struct-ops
 * programs, integers and strings, checked against the kernel's BTF when it is collected, and
 * laid out for .struct_ops when the object is written (struct_ops.h). */
#include "struct_ops.h"
#include "core.h"
#include "kbtf.h"
#include "nearest.h"
#include <bpf/btf.h>
#include <stdlib.h>
#include <string.h>

/* A member as written: (MEMBER VALUE), checked against the kernel's member. */
struct sops_memberdef {
	struct kl_node *at;           /* the (MEMBER VALUE) form, or :name's value */
	struct kl_node *value;
	struct kl_sops_member m;      /* m.func unset until the object is made */
	uint32_t proto;               /* PROG: the kernel's FUNC_PROTO id */
	int64_t ival;                 /* INT */
};

struct sops_def {
	const char *name;             /* as written */
	struct kl_span span;
	const struct kl_kbtf *k;
	const char *type;             /* the kernel struct's name */
	uint32_t size;
	KL_VEC(struct sops_memberdef) members;
};

struct prog_member;
struct kl_sops_set {
	KL_VEC(struct sops_def) defs;
	struct prog_member *by_prog;   /* members_by_prog's index (NULL: not made yet) */
};

/* The arguments' facts per struct (struct_ops.h): the kernel's stubs for each operation (CFI
 * stubs, with named parameters) and the verifier's retyping of a pointer argument
 * (bpf_tcp_ca_is_valid_access: a struct sock * argument is a struct tcp_sock *). */
static const struct {
	const char *type;
	const char *stubs[3];
	const char *from, *to;
} facts[] = {
	{ "tcp_congestion_ops", { "__bpf_tcp_ca_", "bpf_tcp_ca_", NULL }, "sock", "tcp_sock" },
};

static int fact_of(const char *type)
{
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		if (!strcmp(facts[i].type, type))
			return (int)i;
	return -1;
}

const char *const *kl_struct_ops_stub_prefixes(const char *type)
{
	int f = fact_of(type);
	return f < 0 ? NULL : facts[f].stubs;
}

const char *kl_struct_ops_retype(const char *type, const char *pointee)
{
	int f = fact_of(type);
	return f >= 0 && pointee && !strcmp(facts[f].from, pointee) ? facts[f].to : NULL;
}

const char *kl_struct_ops_section(struct kl_comp *c, const char *prog)
{
	return kl_arena_printf(c->a, "struct_ops/%s", kl_mangle(c->a, prog));
}

static struct kl_sops_set *set_of(struct kl_comp *c)
{
	if (!c->sops)
		c->sops = kl_arena_new(c->a, struct kl_sops_set);
	return c->sops;
}

/* name as the kernel spells it (dashes are underscores) equal to a member's name */
static bool same_name(const char *kernel, const char *lisp)
{
	for (; *kernel && *lisp; kernel++, lisp++)
		if (*kernel != *lisp && !(*kernel == '_' && *lisp == '-'))
			return false;
	return !*kernel && !*lisp;
}

/* The kernel struct's member called name (an index), or -1 with an error naming the nearest. */
static int find_member(struct kl_comp *c, const struct sops_def *d, const struct btf_type *st, struct kl_node *at,
		       const char *name)
{
	const struct btf *btf = kl_kbtf_btf(d->k);
	const struct btf_member *m = btf_members(st);
	struct kl_nearest nb;
	kl_nearest_init(&nb, name);
	for (uint32_t i = 0; i < btf_vlen(st); i++) {
		const char *mn = btf__name_by_offset(btf, m[i].name_off);
		if (same_name(mn, name))
			return (int)i;
		if (*mn)
			kl_nearest_add(&nb, mn);
	}
	char hint[400];
	kl_nearest_hint(&nb, hint, sizeof(hint));
	return kl_error(c->d, at->span, "struct %s has no member '%s'%s%s", d->type, name, *hint ? "; " : "", hint);
}

static const struct btf_type *resolved(const struct btf *btf, uint32_t id, uint32_t *out)
{
	int r = btf__resolve_type(btf, id);
	*out = r > 0 ? (uint32_t)r : 0;
	return r > 0 ? btf__type_by_id(btf, (uint32_t)r) : NULL;
}

static struct kl_type *int_type(uint32_t size, bool is_signed)
{
	static const char *const names[2][4] = { { "u8", "u16", "u32", "u64" }, { "i8", "i16", "i32", "i64" } };
	int k = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
	return kl_type_builtin(names[is_signed][k]);
}

/* What the kernel's member is and whether the value suits it: a function pointer takes a
 * program's name, a char array a string that fits with its NUL, an integer a constant. */
static int check_value(struct kl_comp *c, struct sops_def *d, struct sops_memberdef *md, const struct btf_type *st,
		       uint32_t idx)
{
	const struct btf_member *km = &btf_members(st)[idx];
	const struct btf *btf = kl_kbtf_btf(d->k);
	uint32_t id;
	const struct btf_type *t = resolved(btf, km->type, &id);
	struct kl_node *v = md->value;
	md->m.off = btf_member_bit_offset(st, idx) / 8;
	if (btf_member_bitfield_size(st, idx))
		return kl_error(c->d, md->at->span, "member '%s' of %s is a bitfield, which libbpf cannot set", md->m.name,
				d->type);
	if (t && btf_is_ptr(t)) {
		const struct btf_type *f = resolved(btf, t->type, &id);
		if (!f || !btf_is_func_proto(f))
			return kl_error(c->d, md->at->span, "member '%s' of %s is a pointer, not a function pointer; "
					"libbpf sets only function pointers", md->m.name, d->type);
		if (v->kind != KL_N_SYM)
			return kl_error(c->d, v->span, "member '%s' of %s is a function pointer: name a :struct-ops "
					"defprog", md->m.name, d->type);
		md->m.kind = KL_SOPS_PROG;
		md->proto = id;
		return 0;
	}
	if (t && btf_is_array(t)) {
		uint32_t eid;
		const struct btf_type *e = resolved(btf, btf_array(t)->type, &eid);
		uint32_t n = btf_array(t)->nelems;
		if (!e || !btf_is_int(e) || e->size != 1)
			return kl_error(c->d, md->at->span, "member '%s' of %s is an array of other than chars; kiln "
					"sets char arrays (a string), integers and function pointers", md->m.name, d->type);
		if (v->kind != KL_N_STR)
			return kl_error(c->d, v->span, "member '%s' of %s is char[%u]: give a string", md->m.name,
					d->type, n);
		if (strlen(v->str) + 1 > n)
			return kl_error(c->d, v->span, "\"%s\" is %zu bytes with its NUL; %s's '%s' holds %u", v->str,
					strlen(v->str) + 1, d->type, md->m.name, n);
		md->m.kind = KL_SOPS_CHARS;
		md->m.type = kl_type_array(c->a, kl_type_builtin("char"), n);
		return 0;
	}
	if (t && btf_is_int(t) && (t->size == 1 || t->size == 2 || t->size == 4 || t->size == 8)) {
		bool sgn = btf_int_encoding(t) & BTF_INT_SIGNED;
		if (kl_const_eval(c, v, &md->ival))
			return -1;
		if (t->size < 8 && (sgn ? md->ival < -((int64_t)1 << (t->size * 8 - 1)) ||
					  md->ival >= ((int64_t)1 << (t->size * 8 - 1))
				       : md->ival < 0 || md->ival >= ((int64_t)1 << (t->size * 8))))
			return kl_error(c->d, v->span, "%lld does not fit member '%s' of %s (%u bytes, %s)",
					(long long)md->ival, md->m.name, d->type, t->size, sgn ? "signed" : "unsigned");
		md->m.kind = KL_SOPS_INT;
		md->m.type = int_type(t->size, sgn);
		return 0;
	}
	return kl_error(c->d, md->at->span, "member '%s' of %s is neither a function pointer, an integer nor a char "
			"array; kiln sets only those", md->m.name, d->type);
}

/* One (MEMBER VALUE) of d, or :name's value (member "name"). */
static int add_member(struct kl_comp *c, struct sops_def *d, const struct btf_type *st, struct kl_node *at,
		      const char *name, struct kl_node *value)
{
	int idx = find_member(c, d, st, at, name);
	if (idx < 0)
		return -1;
	const struct btf *btf = kl_kbtf_btf(d->k);
	const char *kname = btf__name_by_offset(btf, btf_members(st)[idx].name_off);
	for (size_t i = 0; i < d->members.len; i++)
		if (!strcmp(d->members.items[i].m.name, kname))
			return kl_error(c->d, at->span, "member '%s' of %s is set twice (first at line %u)", kname, d->type,
					d->members.items[i].at->span.line);
	struct sops_memberdef md = { .at = at, .value = value, .m = { .name = kname } };
	if (check_value(c, d, &md, st, (uint32_t)idx))
		return -1;
	kl_vec_push(c->a, &d->members, md);
	return 0;
}

/* :type KSTRUCT: the kernel's struct, which must be one the kernel registers as struct_ops
 * (it has bpf_struct_ops_KSTRUCT). */
static const struct btf_type *kernel_struct(struct kl_comp *c, struct sops_def *d, struct kl_node *tn)
{
	if (tn->kind != KL_N_SYM && tn->kind != KL_N_KEY)
		return kl_error(c->d, tn->span, "defstruct-ops :type names a kernel struct: :type tcp_congestion_ops"),
		       NULL;
	if (!(d->k = kl_core_kernel(c, tn->span)))
		return NULL;
	d->type = kl_mangle(c->a, kl_name(tn));
	const char *vt = kl_arena_printf(c->a, "bpf_struct_ops_%s", d->type);
	uint32_t id = kl_kbtf_find(d->k, d->type, KL_KB_STRUCT);
	if (!id || !kl_kbtf_find(d->k, vt, KL_KB_STRUCT)) {
		struct kl_nearest nb;
		char hint[400];
		kl_nearest_init(&nb, vt);
		kl_kbtf_nearest(d->k, &nb, KL_KB_STRUCT);
		kl_nearest_hint(&nb, hint, sizeof(hint));
		kl_error(c->d, tn->span, "the kernel has no struct_ops type '%s' (no struct %s in %s)%s%s", d->type, vt,
			 kl_kbtf_path(d->k), *hint ? "; " : "", hint);
		return NULL;
	}
	const struct btf_type *t = btf__type_by_id(kl_kbtf_btf(d->k), id);
	d->type = btf__name_by_offset(kl_kbtf_btf(d->k), t->name_off);   /* the kernel's spelling */
	d->size = t->size;
	return t;
}

int kl_struct_ops_define(struct kl_comp *c, struct kl_node *n)
{
	const char *usage = "(defstruct-ops NAME :type tcp_congestion_ops :name \"cc\" (MEMBER PROG-OR-VALUE) ...)";
	if (n->nitems < 2 || n->items[1]->kind != KL_N_SYM)
		return kl_error(c->d, n->span, "defstruct-ops needs a name: %s", usage);
	struct kl_sops_set *s = set_of(c);
	struct sops_def d = { .name = kl_name(n->items[1]), .span = n->items[1]->span };
	for (size_t i = 0; i < s->defs.len; i++)
		if (!strcmp(s->defs.items[i].name, d.name))
			return kl_error(c->d, d.span, "defstruct-ops '%s' is defined twice", d.name);
	struct kl_node *type = NULL, *name = NULL;
	uint32_t i = 2;
	for (; i < n->nitems && n->items[i]->kind == KL_N_KEY; i += 2) {
		struct kl_node *k = n->items[i];
		if (i + 1 >= n->nitems || (strcmp(k->str, "type") && strcmp(k->str, "name")))
			return kl_error(c->d, k->span, "defstruct-ops takes :type and :name, then members: %s", usage);
		*(strcmp(k->str, "type") ? &name : &type) = n->items[i + 1];
	}
	if (!type)
		return kl_error(c->d, n->span, "defstruct-ops needs :type, the kernel struct it fills: %s", usage);
	const struct btf_type *st = kernel_struct(c, &d, type);
	if (!st)
		return -1;
	if (name && add_member(c, &d, st, name, "name", name))
		return -1;
	for (; i < n->nitems; i++) {
		struct kl_node *m = n->items[i];
		if (m->kind != KL_N_LIST || m->nitems != 2 || m->items[0]->kind != KL_N_SYM)
			return kl_error(c->d, m->span, "a defstruct-ops member is (MEMBER VALUE): %s", usage);
		if (add_member(c, &d, st, m, m->items[0]->str, m->items[1]))
			return -1;
	}
	kl_vec_push(c->a, &s->defs, d);
	return 0;
}

/* Each program's member, indexed by the program's place in c->progs on the first question
 * (every definition is collected by then): one walk of the members, not one per program. */
struct prog_member {
	const struct sops_def *d;
	const struct sops_memberdef *md;
	const struct sops_memberdef *clash;   /* another member it fills, for the error */
};

static struct prog_member *members_by_prog(struct kl_comp *c)
{
	struct kl_sops_set *s = set_of(c);
	if (s->by_prog)
		return s->by_prog;
	s->by_prog = kl_arena_array(c->a, struct prog_member, c->progs.len + 1);
	for (size_t i = 0; i < s->defs.len; i++) {
		const struct sops_def *d = &s->defs.items[i];
		for (size_t j = 0; j < d->members.len; j++) {
			const struct sops_memberdef *md = &d->members.items[j];
			const struct kl_progdef *p = md->m.kind == KL_SOPS_PROG ? kl_prog_lookup(c, kl_name(md->value)) : NULL;
			struct prog_member *pm = p ? &s->by_prog[p - c->progs.items] : NULL;
			if (pm && pm->md && !pm->clash && (strcmp(pm->d->type, d->type) || strcmp(pm->md->m.name, md->m.name)))
				pm->clash = md;
			else if (pm && !pm->md)
				*pm = (struct prog_member){ d, md, NULL };
		}
	}
	return s->by_prog;
}

int kl_struct_ops_member_of(struct kl_comp *c, const struct kl_progdef *p, const struct kl_kbtf **k,
			    const char **type, const char **member, uint32_t *proto)
{
	const struct prog_member *pm = &members_by_prog(c)[p - c->progs.items];
	if (pm->clash)
		return kl_error(c->d, pm->clash->value->span, "program '%s' fills %s.%s already (line %u); a struct_ops "
				"program serves one member of one struct", p->name, pm->d->type, pm->md->m.name,
				pm->md->value->span.line);
	if (!pm->md)
		return kl_error(c->d, p->form->items[1]->span, "program '%s' is :struct-ops but fills no member of a "
				"defstruct-ops; name it there, as in (defstruct-ops OPS :type tcp_congestion_ops "
				"(ssthresh %s) ...)", p->name, p->name);
	*k = pm->d->k;
	*type = pm->d->type;
	*member = pm->md->m.name;
	*proto = pm->md->proto;
	return 0;
}

static int by_off(const void *a, const void *b)
{
	const struct kl_sops_member *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The program a function-pointer member names, as an index into funcs. */
static int member_func(struct kl_comp *c, const struct sops_memberdef *md, const struct kl_func *funcs, uint32_t nf,
		       uint32_t *out)
{
	const struct kl_progdef *p = kl_prog_lookup(c, kl_name(md->value));
	if (!p)
		return kl_error(c->d, md->value->span, "'%s' is no program: member '%s' takes a :struct-ops defprog",
				kl_name(md->value), md->m.name);
	if (p->pt->prog_type != BPF_PROG_TYPE_STRUCT_OPS)
		return kl_error(c->d, md->value->span, "program '%s' is :%s; member '%s' takes a :struct-ops program",
				p->name, p->pt->keyword, md->m.name);
	const char *mangled = kl_mangle(c->a, p->name);
	for (uint32_t i = 0; i < nf; i++)
		if (funcs[i].section && !strcmp(funcs[i].name, mangled)) {
			*out = i;
			return 0;
		}
	return kl_error(c->d, md->value->span, "internal: program '%s' was not compiled", p->name);
}

/* The variable's name: an ELF symbol, so no map, global or function may have it. */
static int name_free(struct kl_comp *c, const struct sops_def *d, const char *var, const struct kl_obj *obj)
{
	for (uint32_t i = 0; i < obj->nmaps; i++)
		if (!strcmp(obj->maps[i].name, var))
			return kl_error(c->d, d->span, "defstruct-ops '%s' and a map are both named %s", d->name, var);
	for (uint32_t i = 0; i < obj->nglobals; i++)
		if (!strcmp(obj->globals[i].name, var))
			return kl_error(c->d, d->span, "defstruct-ops '%s' and a global are both named %s", d->name, var);
	for (uint32_t i = 0; i < obj->nfuncs; i++)
		if (!strcmp(obj->funcs[i].name, var))
			return kl_error(c->d, d->span, "defstruct-ops '%s' and a function are both named %s", d->name, var);
	for (uint32_t i = 0; i < obj->nsops; i++)
		if (!strcmp(obj->sops[i].var, var))
			return kl_error(c->d, d->span, "defstruct-ops '%s' and '%s' are both named %s", d->name,
					c->sops->defs.items[i].name, var);
	return 0;
}

static void put_int(uint8_t *at, uint32_t size, int64_t v)
{
	for (uint32_t k = 0; k < size; k++)
		at[k] = (uint8_t)((uint64_t)v >> (8 * k));
}

int kl_struct_ops_obj(struct kl_comp *c, struct kl_obj *obj, const struct kl_func *funcs, uint32_t nf)
{
	size_t n = c->sops ? c->sops->defs.len : 0;
	if (!n)
		return 0;
	struct kl_sops *out = kl_arena_array(c->a, struct kl_sops, n);
	obj->sops = out;
	obj->nsops = 0;
	uint32_t end = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sops_def *d = &c->sops->defs.items[i];
		struct kl_sops *s = &out[i];
		s->var = kl_mangle(c->a, d->name);
		if (name_free(c, d, s->var, obj))
			return -1;
		s->type = d->type;
		s->size = d->size;
		s->image = kl_arena_alloc(c->a, d->size);
		s->members = kl_arena_array(c->a, struct kl_sops_member, d->members.len + 1);
		s->nmembers = (uint32_t)d->members.len;
		for (uint32_t j = 0; j < s->nmembers; j++) {
			const struct sops_memberdef *md = &d->members.items[j];
			s->members[j] = md->m;
			if (md->m.kind == KL_SOPS_PROG && member_func(c, md, funcs, nf, &s->members[j].func))
				return -1;
			if (md->m.kind == KL_SOPS_INT)
				put_int(s->image + md->m.off, md->m.type->size, md->ival);
			if (md->m.kind == KL_SOPS_CHARS)
				memcpy(s->image + md->m.off, md->value->str, strlen(md->value->str));
		}
		qsort(s->members, s->nmembers, sizeof(*s->members), by_off);
		s->off = (end + 7) / 8 * 8;
		end = s->off + s->size;
		obj->nsops++;
	}
	obj->sops_size = end;
	return 0;
}
