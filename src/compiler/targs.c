/* targs.c — the typed arguments of tracing programs, read from the kernel's BTF (targs.h). */
#include "targs.h"
#include "core.h"
#include "kbtf.h"
#include "nearest.h"
#include "struct_ops.h"
#include <bpf/btf.h>
#include <string.h>

enum { K_TP, K_FUNC, K_LSM };

static const struct {
	const char *prefix;
	int kind;
	bool trusted, ret;
} kinds[] = {
	{ "tp_btf/", K_TP, true, false },
	{ "raw_tp/", K_TP, false, false },
	{ "raw_tracepoint/", K_TP, false, false },
	{ "raw_tp.w/", K_TP, false, false },
	{ "raw_tracepoint.w/", K_TP, false, false },
	{ "fentry/", K_FUNC, true, false },
	{ "fentry.s/", K_FUNC, true, false },
	{ "fexit/", K_FUNC, true, true },
	{ "fexit.s/", K_FUNC, true, true },
	{ "fmod_ret/", K_FUNC, true, true },
	{ "fmod_ret.s/", K_FUNC, true, true },
	{ "lsm/", K_LSM, true, false },
	{ "lsm.s/", K_LSM, true, false },
};

static int kind_of(const struct kl_progdef *p)
{
	if (!p->section || !p->pt)
		return -1;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(p->section, kinds[i].prefix, strlen(kinds[i].prefix)) &&
		    p->section[strlen(kinds[i].prefix)])
			return (int)i;
	return -1;
}

static bool is_struct_ops(const struct kl_progdef *p)
{
	return p->pt && p->pt->prog_type == BPF_PROG_TYPE_STRUCT_OPS;
}

bool kl_targs_wanted(const struct kl_progdef *p, bool *must)
{
	if (is_struct_ops(p)) {
		if (must)
			*must = true;
		return true;
	}
	int k = kind_of(p);
	if (must)
		*must = k >= 0 && kinds[k].trusted;
	return k >= 0;
}

/* The :section string of the defprog, for errors. */
static struct kl_span section_span(const struct kl_progdef *p)
{
	const struct kl_node *o = p->form->nitems > 2 ? p->form->items[2] : NULL;
	for (uint32_t i = 0; o && o->kind == KL_N_LIST && i + 1 < o->nitems; i += 2)
		if (kl_is_key(o->items[i], "section"))
			return o->items[i + 1]->span;
	return p->form->span;
}

static const char *kernel_path(const struct kl_comp *c)
{
	return c->btf_path ? c->btf_path : c->opts.btf_path;
}

/* Feed the names of kind after prefix (typedefs btf_trace_NAME: the tracepoints; FUNCs
 * bpf_lsm_HOOK: the LSM hooks) to nb. */
static void nearest_prefixed(const struct btf *btf, unsigned kind, const char *prefix, struct kl_nearest *nb)
{
	uint32_t n = btf__type_cnt(btf);
	size_t len = strlen(prefix);
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (btf_kind(t) != kind)
			continue;
		const char *name = btf__name_by_offset(btf, t->name_off);
		if (!strncmp(name, prefix, len))
			kl_nearest_add(nb, name + len);
	}
}

static const struct btf_type *proto_of(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;
	if (t && btf_is_func(t))
		t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

/* A FUNC named prefix+target whose prototype has the same parameters as proto, named. */
static const struct btf_type *named_twin(const struct kl_kbtf *k, const char *prefix, const char *target,
					 const struct btf_type *proto, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", prefix, target);
	const struct btf_type *t = proto_of(kl_kbtf_btf(k), kl_kbtf_find(k, buf, KL_KB_FUNC));
	return t && btf_vlen(t) == btf_vlen(proto) ? t : NULL;
}

static int fill(struct kl_comp *c, struct kl_targs *a, const struct btf *btf, const struct btf_type *proto,
		const struct btf_type *names, uint32_t first, struct kl_span sp)
{
	uint32_t vlen = btf_vlen(proto), slot = 0;
	const struct btf_param *pp = btf_params(proto), *np = names ? btf_params(names) : NULL;
	if (vlen && !pp[vlen - 1].type)
		vlen--;   /* variadic */
	a->args = kl_arena_array(c->a, struct kl_targ, vlen > first ? vlen - first : 1);
	for (uint32_t i = first; i < vlen; i++) {
		struct kl_targ *g = &a->args[a->n++];
		const char *nm = btf__name_by_offset(btf, (np ? np : pp)[i].name_off);
		g->name = nm && *nm ? nm : NULL;
		g->type = kl_core_project(c, pp[i].type);
		g->slot = slot;
		g->nslots = g->type && g->type->size > 8 ? (g->type->size + 7) / 8 : 1;
		slot += g->nslots;
	}
	if (slot > 12)
		return kl_error(c->d, sp, "%s %s takes %u words of arguments; a BPF program reads at most 12",
				a->what, a->target, slot);
	if (a->has_ret) {
		a->ret.name = "ret";
		a->ret.type = kl_core_project(c, proto->type);
		a->ret.slot = slot;
		a->ret.nslots = 1;
		if (!proto->type)
			a->has_ret = false;   /* a void function */
	}
	return 0;
}

/* A FUNC named prefix+member whose parameters are proto's, the same types in the same order
 * (a struct_ops member's stub: its parameters named). */
static const struct btf_type *stub_of(const struct kl_kbtf *k, const char *prefix, const char *member,
				      const struct btf_type *proto, char *buf, size_t size)
{
	const struct btf_type *t = named_twin(k, prefix, member, proto, buf, size);
	for (uint32_t i = 0; t && i < btf_vlen(t); i++)
		if (btf_params(t)[i].type != btf_params(proto)[i].type)
			return NULL;
	return t;
}

/* A struct_ops program's arguments: its member's function prototype, named by the kernel's
 * stub for the member, pointers retyped as the verifier retypes them (struct_ops.h). */
static const struct kl_targs *struct_ops_args(struct kl_comp *c, const struct kl_progdef *p)
{
	const struct kl_kbtf *k;
	const char *type, *member;
	uint32_t pid;
	if (kl_struct_ops_member_of(c, p, &k, &type, &member, &pid))
		return NULL;
	const struct btf *btf = kl_kbtf_btf(k);
	const struct btf_type *proto = btf__type_by_id(btf, pid), *names = NULL;
	struct kl_targs *a = kl_arena_new(c->a, struct kl_targs);
	a->what = "struct_ops member";
	a->target = kl_arena_printf(c->a, "%s.%s", type, member);
	a->trusted = true;
	char buf[256];
	const char *const *stubs = kl_struct_ops_stub_prefixes(type);
	for (uint32_t i = 0; stubs && stubs[i] && !names; i++)
		names = stub_of(k, stubs[i], member, proto, buf, sizeof(buf));
	if (fill(c, a, btf, proto, names, 0, section_span(p)))
		return NULL;
	for (uint32_t i = 0; i < a->n; i++) {
		struct kl_type *t = a->args[i].type;
		const char *to = t && t->kind == KL_T_PTR && t->elem ? kl_struct_ops_retype(type, t->elem->name) : NULL;
		struct kl_type *st = to ? kl_core_type(c, to, KL_KB_STRUCT, section_span(p)) : NULL;
		if (to && !st)
			return NULL;
		if (st) {
			struct kl_type *np = kl_arena_new(c->a, struct kl_type);
			*np = *t;
			np->elem = st;
			a->args[i].type = np;
		}
	}
	return a;
}

const struct kl_targs *kl_targs_of(struct kl_comp *c, const struct kl_progdef *p)
{
	if (is_struct_ops(p))
		return struct_ops_args(c, p);
	int ki = kind_of(p);
	if (ki < 0)
		return NULL;
	struct kl_span sp = section_span(p);
	char err[512], buf[256];
	/* a raw tracepoint is typed only when the kernel's BTF can be read: it runs without it */
	if (!kinds[ki].trusted && !kl_kbtf_open(kernel_path(c), err, sizeof(err)))
		return NULL;
	const struct kl_kbtf *k = kl_core_kernel(c, sp);
	if (!k)
		return NULL;
	const struct btf *btf = kl_kbtf_btf(k);
	struct kl_targs *a = kl_arena_new(c->a, struct kl_targs);
	a->target = strchr(p->section, '/') + 1;
	a->trusted = kinds[ki].trusted;
	a->has_ret = kinds[ki].ret;
	struct kl_nearest nb;
	char hint[400];
	kl_nearest_init(&nb, a->target);
	switch (kinds[ki].kind) {
	case K_TP: {
		a->what = "tracepoint";
		snprintf(buf, sizeof(buf), "btf_trace_%s", a->target);
		uint32_t id = kl_kbtf_find(k, buf, KL_KB_TYPEDEF);
		const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;
		if (t)
			t = btf__type_by_id(btf, t->type);
		const struct btf_type *proto = t && btf_is_ptr(t) ? proto_of(btf, t->type) : NULL;
		if (!proto || !btf_vlen(proto)) {
			if (!a->trusted)
				return NULL;
			nearest_prefixed(btf, BTF_KIND_TYPEDEF, "btf_trace_", &nb);
			kl_nearest_hint(&nb, hint, sizeof(hint));
			kl_error(c->d, sp, "the kernel has no tracepoint '%s' (no btf_trace_%s in %s)%s%s", a->target,
				 a->target, kl_kbtf_path(k), *hint ? "; " : "", hint);
			return NULL;
		}
		/* the typedef's parameters have no names; a FUNC with the same prototype has them */
		const struct btf_type *names = named_twin(k, "__probestub_", a->target, proto, buf, sizeof(buf));
		if (!names)
			names = named_twin(k, "__bpf_trace_", a->target, proto, buf, sizeof(buf));
		return fill(c, a, btf, proto, names, 1, sp) ? NULL : a;
	}
	case K_FUNC:
	case K_LSM: {
		bool lsm = kinds[ki].kind == K_LSM;
		a->what = lsm ? "LSM hook" : "function";
		snprintf(buf, sizeof(buf), "%s%s", lsm ? "bpf_lsm_" : "", a->target);
		const struct btf_type *proto = proto_of(btf, kl_kbtf_find(k, buf, KL_KB_FUNC));
		if (!proto) {
			if (lsm)
				nearest_prefixed(btf, BTF_KIND_FUNC, "bpf_lsm_", &nb);
			else
				kl_kbtf_nearest(k, &nb, KL_KB_FUNC);
			kl_nearest_hint(&nb, hint, sizeof(hint));
			kl_error(c->d, sp, "the kernel has no %s '%s' (no FUNC %s in %s)%s%s", a->what, a->target, buf,
				 kl_kbtf_path(k), *hint ? "; " : "", hint);
			return NULL;
		}
		return fill(c, a, btf, proto, NULL, 0, sp) ? NULL : a;
	}
	}
	return NULL;
}
