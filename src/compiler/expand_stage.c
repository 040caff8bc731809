/* expand_stage.c — macro expansion, the stage between collection and lowering. The pipeline
 * is reader -> collect (forms.c) -> expand (here) -> lower -> optimize -> allocate -> emit ->
 * write, and compile.c runs it in that order.
 *
 * What it does: it walks the body of every defun and defprog as lowering will read it, and
 * expands each macro call in a place lowering reads as code, once, with expand.h's
 * kl_macro_expand; then it walks the expansion the same way (an expansion may hold more
 * calls). The expansion is left on the call node (kl_node.expansion) and the tree is not
 * otherwise changed: lowering lowers n->expansion where it meets such a node and never
 * expands anything, lower_assigned.c looks through n->expansion, and whatever reads a form
 * as written (kl_node_str in messages, the unroller's form count, the switch and branch
 * recognisers) still sees the call as the user wrote it, as before this stage existed.
 *
 * Which arguments are code: each special form's row in lowering's tables carries a shape
 * (lower_internal.h: e expression, d data, b and w bindings, c cond clauses, P places),
 * read here through kl_lower_shape(); any other form (a call of a helper, a defun, an
 * accessor, an operator) has only expressions for arguments. So quote-like data, types,
 * binding names, constant arguments, field paths and declare forms are never expanded.
 *
 * Each call met is expanded once: lowering's repeats (a dotimes body lowered once per
 * unrolled iteration, or twice when a bpf_loop callback is tried first) and the assigned-
 * variable walk no longer expand again, so they no longer count against KL_MAX_EXPANDED.
 * A call node that appears twice in the tree (a macro that puts an argument in two places)
 * is expanded at each place, as it was lowered at each: the limit still bounds the work.
 *
 * A macro call at top level (deftracepoint, defheader, a user's macro making defuns) is
 * collection's to expand, not this stage's: what it makes are definitions, which forms.c must
 * see to collect. This stage starts from what collection recorded.
 *
 * The prelude: collection is complete for the program when the stage runs. Looking a name
 * up as a macro (kl_macro_is) may still collect a prelude form lazily (prelude.c); such a
 * form defines only macros and constants (defmacro, defconstant, defheader), never code to
 * lower, so nothing the stage has walked needs walking again.
 *
 * Errors: the first one stops the stage. An error inside an expansion is reported by expand.c
 * at the call, naming the macro; when that call was itself made by another macro's expansion
 * (and so may sit in a macro's definition, or in the prelude), kl_diag_expansion_note adds the
 * call written in the body: "(in the expansion of macro 'M' at FILE:LINE:COL)". */
#include "expand_stage.h"
#include "compile.h"
#include "lower.h"
#include "expand.h"
#include <stdio.h>
#include <string.h>

/* Forms nested deeper than this, counting through expansions, are refused: the walk (and
 * lowering after it) recurses once per level. The reader stops at 1,000 levels of source;
 * KL_MAX_EXPANSIONS bounds the nesting of expansions. */
#define MAX_WALK_DEPTH 20000

struct walk {
	struct kl_comp *c;
	uint32_t depth;
	const struct kl_node *outermost;   /* the call in the body whose expansion is being walked */
};

static int expr(struct walk *w, struct kl_node *n);

static int exprs(struct walk *w, struct kl_node **items, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (expr(w, items[i]))
			return -1;
	return 0;
}

/* A binding of let, let*, when-let or if-let: NAME, (NAME VALUE) or (NAME TYPE VALUE). */
static int binding(struct walk *w, struct kl_node *b)
{
	if (b->kind != KL_N_LIST || b->nitems < 2 || b->nitems > 3)
		return 0;
	return expr(w, b->items[b->nitems - 1]);
}

static int bindings(struct walk *w, struct kl_node *bs, bool one_allowed)
{
	if (bs->kind != KL_N_LIST)
		return 0;
	/* when-let's single binding (x e) or (x TYPE e), as lowering tells it from a list */
	if (one_allowed && (bs->nitems == 2 || bs->nitems == 3) && bs->items[0]->kind == KL_N_SYM)
		return binding(w, bs);
	for (uint32_t i = 0; i < bs->nitems; i++)
		if (binding(w, bs->items[i]))
			return -1;
	return 0;
}

static int args(struct walk *w, struct kl_node *n, const char *shape);

/* A place of setf: not itself expanded; its arguments as its own form's shape says. */
static int place(struct walk *w, struct kl_node *p)
{
	const char *h = kl_head(p);
	return h ? args(w, p, kl_lower_shape(h)) : 0;
}

/* The arguments of form n by its shape (NULL: a call, every argument an expression). */
static int args(struct walk *w, struct kl_node *n, const char *shape)
{
	size_t len = shape ? strlen(shape) : 0;
	for (uint32_t i = 1; i < n->nitems; i++) {
		char k = !len ? 'e' : shape[i - 1 < len ? i - 1 : len - 1];
		struct kl_node *a = n->items[i];
		int r = 0;
		switch (k) {
		case 'e': r = expr(w, a); break;
		case 'b': r = bindings(w, a, false); break;
		case 'w': r = bindings(w, a, true); break;
		case 'c': r = a->kind == KL_N_LIST ? exprs(w, a->items, a->nitems) : 0; break;
		case 'P':
			for (uint32_t j = i; j < n->nitems && !r; j++)
				r = (j - i) % 2 ? expr(w, n->items[j]) : place(w, n->items[j]);
			return r;
		default: break;   /* 'd': data */
		}
		if (r)
			return -1;
	}
	return 0;
}

/* Macro call n: expanded, and its expansion walked as an expression. */
static int expand_call(struct walk *w, struct kl_node *n)
{
	int errors = w->c->d->nerrors;
	struct kl_node *x = kl_macro_expand(w->c, n);
	if (!x) {
		if (!errors && w->outermost)
			kl_diag_expansion_note(w->c->d, kl_name(w->outermost->items[0]), w->outermost->span);
		return -1;
	}
	n->expansion = x;
	bool first = !w->outermost;
	if (first)
		w->outermost = n;
	w->c->expansions++;
	int r = expr(w, x);
	w->c->expansions--;
	if (first)
		w->outermost = NULL;
	return r;
}

static int expr(struct walk *w, struct kl_node *n)
{
	const char *h = kl_head(n);
	if (!h)   /* an atom, (), or a list lowering refuses (it starts with no symbol) */
		return 0;
	if (w->depth >= MAX_WALK_DEPTH)
		return kl_error(w->c->d, n->span, "forms nest deeper than %d levels (counting through macro "
				"expansions)", MAX_WALK_DEPTH);
	w->depth++;
	int r = kl_macro_is(w->c, h) ? expand_call(w, n) : args(w, n, kl_lower_shape(h));
	w->depth--;
	return r;
}

static int expand_body(struct kl_comp *c, struct kl_node **forms, uint32_t n)
{
	struct walk w = { c, 0, NULL };
	return exprs(&w, forms, n);
}

int kl_expand_program(struct kl_comp *c)
{
	for (size_t i = 0; i < c->funs.len; i++) {
		struct kl_fundef *f = &c->funs.items[i];
		if (expand_body(c, f->form->items + 3, f->form->nitems - 3))
			return -1;
	}
	for (size_t i = 0; i < c->progs.len; i++) {
		struct kl_progdef *p = &c->progs.items[i];
		if (expand_body(c, p->form->items + p->body_start, p->form->nitems - p->body_start))
			return -1;
	}
	return 0;
}
