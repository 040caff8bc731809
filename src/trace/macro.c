/* macro.c — bpftrace 0.26's macros expanded in the tree: a call `NAME(args)` (or a bare
 * `NAME` of a macro without parameters) becomes a copy of the macro's body in which an
 * expression parameter is the argument's expression, a `$v` parameter the caller's
 * variable and an `@m` parameter the caller's map. The body's other variables are its own
 * (renamed per expansion, so a caller's variable of the same name is another); a map it
 * does not take as a parameter is refused, as 0.26 refuses it. Used as a statement, the
 * body is a block; used as a value, it must be one expression (kiln trace has no block
 * expressions yet). Macros call macros at most KT_MAX_MACRO_DEPTH deep, and the copies
 * are at most KT_MAX_MACRO_NODES nodes; the walks are bounded by KT_MAX_NEST. */
#include "trace/macro.h"
#include "trace/limits.h"
#include <string.h>

struct mx {
	struct kl_arena *a;
	struct kl_diag *d;
	const struct kt_macro *macros;
	uint32_t n;
	uint64_t nodes;             /* made by copies so far */
	uint32_t serial;            /* expansions so far: the renamed variables' suffix */
};

/* One expansion's substitution. */
struct subst {
	const struct kt_macro *m;
	struct kt_node **args;
	uint32_t serial;
};

/* The macro called name taking nargs arguments, else the first called name (whose count
 * is then wrong), NULL none. */
static const struct kt_macro *find(const struct mx *x, const char *name, uint32_t nargs)
{
	const struct kt_macro *named = NULL;
	for (uint32_t i = 0; name && i < x->n; i++)
		if (!strcmp(x->macros[i].name, name)) {
			if (x->macros[i].nparams == nargs)
				return &x->macros[i];
			named = named ? named : &x->macros[i];
		}
	return named;
}

static int too_deep(struct mx *x, struct kl_span at)
{
	return kl_error(x->d, at, "nested too deeply: kiln trace takes at most %d levels of nesting", KT_MAX_NEST);
}

static struct kt_node *copy(struct mx *x, const struct kt_node *n, const struct subst *s, uint32_t depth);

static int copy_kids(struct mx *x, struct kt_node *c, const struct kt_node *n, const struct subst *s, uint32_t depth)
{
	if ((n->a && !(c->a = copy(x, n->a, s, depth + 1))) || (n->b && !(c->b = copy(x, n->b, s, depth + 1))) ||
	    (n->c && !(c->c = copy(x, n->c, s, depth + 1))))
		return -1;
	if (n->nkids) {
		c->kids = kl_arena_array(x->a, struct kt_node *, n->nkids);
		for (uint32_t i = 0; i < n->nkids; i++)
			if (!(c->kids[i] = copy(x, n->kids[i], s, depth + 1)))
				return -1;
	}
	return 0;
}

/* The parameter of s's macro that name is (kind KT_IDENT, KT_VAR or KT_MAP): its index, -1. */
static int param(const struct subst *s, enum kt_kind kind, const char *name)
{
	for (uint32_t i = 0; s && name && i < s->m->nparams; i++)
		if (s->m->params[i]->kind == kind && !strcmp(s->m->params[i]->name, name))
			return (int)i;
	return -1;
}

/* n copied, s's parameters replaced (s NULL: a plain copy, of an argument). NULL on error. */
static struct kt_node *copy(struct mx *x, const struct kt_node *n, const struct subst *s, uint32_t depth)
{
	if (depth > KT_MAX_NEST)
		return too_deep(x, n->span), NULL;
	if (++x->nodes > KT_MAX_MACRO_NODES) {
		kl_error(x->d, n->span, "macros expand to too much: kiln trace takes at most %d nodes of their copies",
			 KT_MAX_MACRO_NODES);
		return NULL;
	}
	int p = n->kind == KT_IDENT ? param(s, KT_IDENT, n->name) : -1;
	if (p >= 0)
		return copy(x, s->args[p], NULL, depth + 1);
	struct kt_node *c = kl_arena_new(x->a, struct kt_node);
	*c = *n;
	if (s && n->kind == KT_VAR) {
		p = param(s, KT_VAR, n->name);
		c->name = p >= 0 ? s->args[p]->name : kl_arena_printf(x->a, "%s`%u", n->name, s->serial);
	} else if (s && n->kind == KT_MAP) {
		p = param(s, KT_MAP, n->name);
		if (p < 0) {
			kl_error(x->d, n->span, "macro %s: @%s is not one of its parameters (a macro reaches maps only through them)",
				 s->m->name, n->name);
			return NULL;
		}
		c->name = s->args[p]->name;
	}
	return copy_kids(x, c, n, s, depth) ? NULL : c;
}

/* The call n of macro m expanded: the body (stmt) or its one expression. */
static struct kt_node *expansion(struct mx *x, const struct kt_macro *m, struct kt_node *n, bool stmt)
{
	if (n->nkids != m->nparams) {
		kl_error(x->d, n->span, "macro %s takes %u argument%s, not %u", m->name, m->nparams,
			 m->nparams == 1 ? "" : "s", n->nkids);
		return NULL;
	}
	for (uint32_t i = 0; i < m->nparams; i++) {
		enum kt_kind want = m->params[i]->kind;
		if (want != KT_IDENT && (n->kids[i]->kind != want || (want == KT_MAP && n->kids[i]->a))) {
			kl_error(x->d, n->kids[i]->span, "macro %s: argument %u must be a %s", m->name, i + 1,
				 want == KT_VAR ? "$variable" : "map (without a key)");
			return NULL;
		}
	}
	struct subst s = { m, n->kids, ++x->serial };
	const struct kt_node *body = m->body;
	if (!stmt) {
		if (body->nkids != 1 || body->kids[0]->kind != KT_EXPRSTMT) {
			kl_error(x->d, n->span, "macro %s is used as a value: kiln trace takes only a body of one expression "
				 "there yet", m->name);
			return NULL;
		}
		body = body->kids[0]->a;
	}
	struct kt_node *c = copy(x, body, &s, 0);
	if (c)
		c->span = n->span;   /* errors in it point at the call */
	return c;
}

static int walk(struct mx *x, struct kt_node **slot, uint32_t depth, uint32_t mdepth);

/* A macro call at *slot (a statement when stmt) replaced by its expansion, itself walked
 * one macro deeper. 1 when none is there. */
static int expand_at(struct mx *x, struct kt_node **slot, bool stmt, uint32_t depth, uint32_t mdepth)
{
	struct kt_node *n = stmt ? (*slot)->a : *slot;
	const struct kt_macro *m = n && (n->kind == KT_CALL || n->kind == KT_IDENT) ? find(x, n->name, n->nkids) : NULL;
	if (!m || (n->kind == KT_IDENT && m->nparams))
		return 1;
	if (mdepth >= KT_MAX_MACRO_DEPTH)
		return kl_error(x->d, n->span, "macro %s: macros expand within macros at most %d deep (a macro calling itself?)",
				m->name, KT_MAX_MACRO_DEPTH);
	struct kt_node *e = expansion(x, m, n, stmt);
	if (!e)
		return -1;
	*slot = e;
	return walk(x, slot, depth, mdepth + 1);
}

/* Every macro call under *slot expanded. */
static int walk(struct mx *x, struct kt_node **slot, uint32_t depth, uint32_t mdepth)
{
	struct kt_node *n = *slot;
	if (!n)
		return 0;
	if (depth > KT_MAX_NEST)
		return too_deep(x, n->span);
	int r = expand_at(x, slot, false, depth, mdepth);
	if (r <= 0)
		return r;
	if (walk(x, &n->a, depth + 1, mdepth) || walk(x, &n->b, depth + 1, mdepth) || walk(x, &n->c, depth + 1, mdepth))
		return -1;
	for (uint32_t i = 0; i < n->nkids; i++) {
		if (n->kind == KT_BLOCK && n->kids[i]->kind == KT_EXPRSTMT) {
			r = expand_at(x, &n->kids[i], true, depth + 1, mdepth);
			if (r < 0)
				return -1;
			if (r == 0)
				continue;
		}
		if (walk(x, &n->kids[i], depth + 1, mdepth))
			return -1;
	}
	return 0;
}

int kt_macro_expand(struct kl_arena *a, struct kl_diag *d, const struct kt_macro *macros, uint32_t n,
		    struct kt_program *prog)
{
	struct mx x = { a, d, macros, n, 0, 0 };
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < i; k++)
			if (!strcmp(macros[k].name, macros[i].name) && macros[k].nparams == macros[i].nparams)
				return kl_error(d, macros[i].span, "macro %s is already defined", macros[i].name);
	for (uint32_t p = 0; n && p < prog->nprobes; p++)
		if (walk(&x, &prog->probes[p].pred, 0, 0) || walk(&x, &prog->probes[p].block, 0, 0))
			return -1;
	return 0;
}
