/* sema_scope.c — bpftrace 0.26's declarations and scopes of $variables: `let $x`, `let $x =
 * e`, `let $x: TYPE = e` (the parser writes the type as a cast of the value), and a variable
 * first assigned in a block is gone after the block (0.17: it lives to the probe's end;
 * `--dialect 0.17` keeps that, and so does a probe that reads a variable after its block, which
 * 0.26 refuses: 0.17's scripts run unchanged). Each variable keeps its own slot: one out of scope has its
 * name emptied, so a later one of the same name is another variable. */
#include "trace/sema_priv.h"
#include "trace/limits.h"
#include <string.h>

/* The visible variable called name: its index, -1 none. */
static int visible(const struct sm *m, const char *name)
{
	for (size_t i = m->vars.len; i-- > 0;)
		if (!strcmp(m->vars.items[i].name, name))
			return (int)i;
	return -1;
}

/* The type a $variable takes from its first value (an integer's size and sign, what it
 * points at). */
static struct kt_type var_type(struct sm *m, const struct kt_type *t)
{
	struct kt_type v = kt_type_own(m->a, t);
	if (v.kind == KTT_INT) {
		v = kt_t_int(t->size ? t->size : 8, t->is_signed);
		v.tname = t->tname;
		v.pointee = t->pointee;
		v.user = t->user;
	}
	return v;
}

/* The first assignment of a variable declared untyped (`let $x;`): it gets the value's type. */
static int first_value(struct sm *m, struct kt_node *s, int i)
{
	m->vars.items[i].type = kt_t_int(8, true);   /* `$x += 1` reads the 0 it starts as */
	if (kt_sm_expr(m, s->b))
		return -1;
	const struct kt_type *t = &s->b->type;
	if (t->kind != KTT_INT && !kt_is_bytes(t) && t->kind != KTT_TUPLE && !kt_is_symbolic(t))
		return kl_error(m->d, s->b->span, "%s", "only integers, strings, tuples and buffers can be kept in $variables by kiln trace yet");
	m->vars.items[i].type = var_type(m, t);
	s->a->var_id = i;
	s->a->type = m->vars.items[i].type;
	return 0;
}

int kt_sm_let(struct sm *m, struct kt_node *s)
{
	if (s->a->kind != KT_VAR)
		return 1;
	int i = visible(m, s->a->name);
	if (s->kind == KT_ASSIGN && !s->is_let)
		return i >= 0 && m->vars.items[i].type.kind == KTT_NONE ? first_value(m, s, i) : 1;
	if (i >= 0)
		return kl_error(m->d, s->a->span, "variable $%s is already declared", s->a->name);
	if (s->kind == KT_ASSIGN)
		return 1;   /* `let $x = e`: a new variable, as a first assignment makes */
	if (m->vars.len == KT_MAX_VARS)
		return kl_error(m->d, s->a->span, "too many $variables: kiln trace takes at most %d in a probe", KT_MAX_VARS);
	struct kt_var v = { s->a->name, { .kind = KTT_NONE } };
	kl_vec_push(m->a, &m->vars, v);
	s->a->var_id = (int)m->vars.len - 1;
	return 0;
}

void kt_sm_scope_close(struct sm *m, size_t mark)
{
	for (size_t i = mark; i < m->vars.len; i++) {
		struct kt_var *v = &m->vars.items[i];
		if (v->type.kind == KTT_NONE)   /* declared, never given a value: 0 */
			v->type = kt_t_int(8, true);
		if (m->s->dialect == KT_DIALECT_026 && !m->scope_017)
			v->name = "";
	}
}

/* ---- whether a probe reads a variable after its block (0.17's meaning) ---- */

struct name_row {
	const char *name;           /* NULL: an empty row */
	uint32_t vis;               /* declarations of it in scope now */
	bool gone;                  /* one went out of scope */
};

struct scan {
	struct name_row *tab;       /* open addressing by the name's hash */
	size_t cap, used;           /* cap a power of two, used at most half */
	KL_VEC(struct name_row *) vis;   /* the declarations in scope, innermost last */
	struct kl_arena *a;
	bool late;                  /* a read of a gone one */
};

static size_t hash_name(const char *s)
{
	size_t h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static struct name_row *row(struct scan *sc, const char *name)
{
	if (2 * (sc->used + 1) > sc->cap) {
		struct name_row *old = sc->tab;
		size_t oldcap = sc->cap;
		sc->cap = oldcap ? 2 * oldcap : 64;
		sc->tab = kl_arena_array(sc->a, struct name_row, sc->cap);
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].name) {
				size_t h = hash_name(old[i].name) & (sc->cap - 1);
				while (sc->tab[h].name)
					h = (h + 1) & (sc->cap - 1);
				sc->tab[h] = old[i];
			}
		for (size_t i = 0; i < sc->vis.len; i++)   /* the stack points into the table */
			for (size_t h = hash_name(sc->vis.items[i]->name) & (sc->cap - 1);; h = (h + 1) & (sc->cap - 1))
				if (!strcmp(sc->tab[h].name, sc->vis.items[i]->name)) {
					sc->vis.items[i] = &sc->tab[h];
					break;
				}
	}
	size_t h = hash_name(name) & (sc->cap - 1);
	while (sc->tab[h].name && strcmp(sc->tab[h].name, name))
		h = (h + 1) & (sc->cap - 1);
	if (!sc->tab[h].name) {
		sc->tab[h].name = name;
		sc->used++;
	}
	return &sc->tab[h];
}

static void declare(struct scan *sc, const char *name)
{
	struct name_row *r = row(sc, name);
	r->vis++;
	kl_vec_push(sc->a, &sc->vis, r);
}

static void scan_node(struct scan *sc, const struct kt_node *n, uint32_t depth);

/* A block's statements, its declarations gone after it (the tree is at most KT_MAX_NEST
 * high: the parser's check_height; depth guards it still). */
static void scan_block(struct scan *sc, const struct kt_node *b, uint32_t depth)
{
	if (!b || sc->late || depth > KT_MAX_NEST + 8)
		return;
	size_t mark = sc->vis.len;
	for (uint32_t i = 0; i < b->nkids; i++)
		scan_node(sc, b->kids[i], depth + 1);
	for (size_t i = mark; i < sc->vis.len; i++)
		if (--sc->vis.items[i]->vis == 0)
			sc->vis.items[i]->gone = true;
	sc->vis.len = mark;
}

static void scan_node(struct scan *sc, const struct kt_node *n, uint32_t depth)
{
	if (!n || sc->late || depth > KT_MAX_NEST + 8)
		return;
	switch (n->kind) {
	case KT_VAR: {
		struct name_row *r = row(sc, n->name);
		sc->late = !r->vis && r->gone;
		return;
	}
	case KT_LET:
		declare(sc, n->a->name);
		return;
	case KT_ASSIGN:
		scan_node(sc, n->b, depth + 1);
		if (n->a->kind != KT_VAR)
			scan_node(sc, n->a, depth + 1);
		else if (n->is_let || !row(sc, n->a->name)->vis)
			declare(sc, n->a->name);
		return;
	case KT_FOR: {   /* its variable is the body's */
		for (uint32_t i = 0; i < n->nkids; i++)
			scan_node(sc, n->kids[i], depth + 1);
		size_t mark = sc->vis.len;
		declare(sc, n->a->name);
		scan_block(sc, n->b, depth);
		if (--sc->vis.items[mark]->vis == 0)
			sc->vis.items[mark]->gone = true;
		sc->vis.len = mark;
		return;
	}
	case KT_BLOCK:
		scan_block(sc, n, depth);
		return;
	case KT_IF: case KT_WHILE: case KT_UNROLL:
		scan_node(sc, n->a, depth + 1);
		scan_block(sc, n->b, depth);
		if (n->c)
			scan_block(sc, n->c, depth);
		return;
	default:
		scan_node(sc, n->a, depth + 1);
		scan_node(sc, n->b, depth + 1);
		scan_node(sc, n->c, depth + 1);
		for (uint32_t i = 0; i < n->nkids; i++)
			scan_node(sc, n->kids[i], depth + 1);
	}
}

bool kt_sm_reads_late(struct sm *m, const struct kt_node *block)
{
	struct scan sc = { .a = m->a };
	scan_block(&sc, block, 0);
	return sc.late;
}
