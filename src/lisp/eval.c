/* eval.c — evaluating forms: the layer's special forms, then the core's (tables: this file's
 * quoting, binding, setting and defining forms, control.c's exits and conditions, loop.c's
 * iteration), then functions (defun'd closures, builtins); the lambda lists bound by bind.c.
 * Every failure returns NULL with the condition in h (see lisp.h). A top-level form is
 * evaluated (or a function applied) with out of memory caught and the C stack's start noted. */
#include "lisp.h"
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>


#define ITEMS(n) ((const struct kl_node *const *)(n)->items)
#define TRY(x) do { if (!(x)) return NULL; } while (0)

static struct lv **lookup(struct lisp *h, const char *name, struct lv_frame *env)
{
	for (; env; env = env->up)
		if (!strcmp(env->name, name))
			return &env->val;
	struct lv_global *g = lv_global(h, name, false);
	return g && g->val ? &g->val : NULL;
}

/* the primary value of v (multiple values reduce to their first) */
struct lv *lv_primary(struct lv *v)
{
	if (v && v->k == LV_MV)
		return v->u.vec.len ? v->u.vec.items[0] : LNIL;
	return v;
}

struct lv *lv_progn(struct lisp *h, const struct kl_node *const *body, uint32_t n, struct lv_frame *env)
{
	struct lv *v = LNIL;
	for (uint32_t i = 0; i < n; i++)
		TRY(v = lv_eval(h, body[i], env));
	return v;
}

static bool is_declare(const struct kl_node *n)
{
	return kl_head(n) && !strcmp(kl_head(n), "declare");
}

struct lv *lv_body_from(struct lisp *h, const struct kl_node *n, uint32_t from, struct lv_frame *env)
{
	while (from < n->nitems && (is_declare(n->items[from]) ||
				    (n->items[from]->kind == KL_N_STR && from + 1 < n->nitems && from == 3 &&
				     kl_is_sym(n->items[0], "defun"))))
		from++;
	return lv_progn(h, ITEMS(n) + from, n->nitems > from ? n->nitems - from : 0, env);
}

int lv_need(struct lisp *h, const struct kl_node *n, uint32_t min, const char *what)
{
	if (n->nitems >= min)
		return 0;
	lv_err(h, n, "%s needs %s", kl_name(n->items[0]), what);
	return -1;
}

/* ---- binding and control ---------------------------------------------------------- */

static struct lv *sf_quote(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	(void)env;
	if (lv_need(h, n, 2, "a form"))
		return NULL;
	return lv_from_node(h, n->items[1]);
}

static struct lv *make_closure(struct lisp *h, const char *name, const struct kl_node *params,
			       const struct kl_node *n, uint32_t from, struct lv_frame *env)
{
	struct lv *f = kl_arena_new(&h->a, struct lv);
	f->k = LV_FN;
	f->u.fn.name = name;
	f->u.fn.params = params;
	f->u.fn.body = ITEMS(n) + from;
	f->u.fn.nbody = n->nitems > from ? n->nitems - from : 0;
	f->u.fn.env = env;
	return f;
}

struct lv *lv_lambda(struct lisp *h, const char *name, const struct kl_node *params,
		     const struct kl_node *const *body, uint32_t nbody)
{
	struct lv *f = kl_arena_new(&h->a, struct lv);
	f->k = LV_FN;
	f->u.fn.name = name;
	f->u.fn.params = params;
	f->u.fn.body = body;
	f->u.fn.nbody = nbody;
	return f;
}

static struct lv *sf_function(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "a name"))
		return NULL;
	const struct kl_node *x = n->items[1];
	if (kl_head(x) && !strcmp(kl_head(x), "lambda") && x->nitems >= 2)
		return make_closure(h, "lambda", x->items[1], x, 2, env);
	if (x->kind != KL_N_SYM)
		return lv_err(h, x, "function needs a name or a lambda");
	struct lv *f = lv_function(h, lv_symname(h, x));
	return f ? f : lv_err(h, x, "undefined function %s", kl_name(x));
}

static struct lv *sf_lambda(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "a lambda list"))
		return NULL;
	return make_closure(h, "lambda", n->items[1], n, 2, env);
}

static struct lv *sf_if(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 3, "a test and a form"))
		return NULL;
	struct lv *c;
	TRY(c = lv_eval(h, n->items[1], env));
	if (lv_true(lv_primary(c)))
		return lv_eval(h, n->items[2], env);
	return n->nitems > 3 ? lv_eval(h, n->items[3], env) : LNIL;
}

static struct lv *sf_when(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "a test"))
		return NULL;
	struct lv *c;
	TRY(c = lv_eval(h, n->items[1], env));
	bool unless = kl_is_sym(n->items[0], "unless");
	if (lv_true(lv_primary(c)) == unless)
		return LNIL;
	return lv_progn(h, ITEMS(n) + 2, n->nitems - 2, env);
}

static struct lv *sf_cond(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	for (uint32_t i = 1; i < n->nitems; i++) {
		const struct kl_node *cl = n->items[i];
		if (cl->kind != KL_N_LIST || !cl->nitems)
			return lv_err(h, cl, "a cond clause is (TEST FORM...)");
		struct lv *c;
		TRY(c = lv_eval(h, cl->items[0], env));
		if (lv_true(lv_primary(c)))
			return cl->nitems > 1 ? lv_progn(h, ITEMS(cl) + 1, cl->nitems - 1, env) : c;
	}
	return LNIL;
}

static struct lv *sf_case(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "a key form"))
		return NULL;
	struct lv *k;
	TRY(k = lv_eval(h, n->items[1], env));
	k = lv_primary(k);
	for (uint32_t i = 2; i < n->nitems; i++) {
		const struct kl_node *cl = n->items[i];
		if (cl->kind != KL_N_LIST || !cl->nitems)
			return lv_err(h, cl, "a case clause is (KEYS FORM...)");
		const struct kl_node *keys = cl->items[0];
		bool hit = kl_is_sym(keys, "otherwise") || kl_is_sym(keys, "t");
		if (keys->kind == KL_N_LIST)
			for (uint32_t j = 0; j < keys->nitems && !hit; j++)
				hit = lv_eql(k, lv_from_node(h, keys->items[j]));
		else if (!hit)
			hit = lv_eql(k, lv_from_node(h, keys));
		if (hit)
			return lv_progn(h, ITEMS(cl) + 1, cl->nitems - 1, env);
	}
	return LNIL;
}

static struct lv *sf_and(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	bool is_or = kl_is_sym(n->items[0], "or");
	struct lv *v = is_or ? LNIL : LT;
	for (uint32_t i = 1; i < n->nitems; i++) {
		TRY(v = lv_eval(h, n->items[i], env));
		v = lv_primary(v);
		if (lv_true(v) == is_or)
			return v;
	}
	return v;
}

static struct lv *sf_progn(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	return lv_progn(h, ITEMS(n) + 1, n->nitems - 1, env);
}

static struct lv *sf_prog1(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "a form"))
		return NULL;
	struct lv *v;
	TRY(v = lv_eval(h, n->items[1], env));
	TRY(lv_progn(h, ITEMS(n) + 2, n->nitems - 2, env));
	return lv_primary(v);
}

static struct lv *sf_let(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "bindings") )
		return NULL;
	bool star = kl_is_sym(n->items[0], "let*");
	const struct kl_node *bs = n->items[1];
	if (bs->kind != KL_N_LIST && !kl_is_sym(bs, "nil"))
		return lv_err(h, bs, "let needs a list of bindings");
	struct lv_frame *inner = env;
	for (uint32_t i = 0; bs->kind == KL_N_LIST && i < bs->nitems; i++) {
		const struct kl_node *b = bs->items[i], *name = b, *init = NULL;
		if (b->kind == KL_N_LIST) {
			if (!b->nitems || b->items[0]->kind != KL_N_SYM)
				return lv_err(h, b, "a binding is NAME or (NAME FORM)");
			name = b->items[0];
			init = b->nitems > 1 ? b->items[b->nitems - 1] : NULL;
		} else if (b->kind != KL_N_SYM) {
			return lv_err(h, b, "a binding is NAME or (NAME FORM)");
		}
		struct lv *v = LNIL;
		if (init)
			TRY(v = lv_eval(h, init, star ? inner : env));
		lv_push_frame(h, &inner, lv_symname(h, name), lv_primary(v));
	}
	return lv_body_from(h, n, 2, inner);
}

static struct lv *sf_mvbind(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 3, "variables and a form"))
		return NULL;
	const struct kl_node *vars = n->items[1];
	struct lv *v;
	TRY(v = lv_eval(h, n->items[2], env));
	struct lv_frame *inner = env;
	for (uint32_t i = 0; vars->kind == KL_N_LIST && i < vars->nitems; i++) {
		struct lv *x = v->k == LV_MV ? (i < v->u.vec.len ? v->u.vec.items[i] : LNIL) : i ? LNIL : v;
		const char *name = lv_var_name(h, vars->items[i], "a multiple-value-bind variable");
		if (!name)
			return NULL;
		lv_push_frame(h, &inner, name, x);
	}
	return lv_body_from(h, n, 3, inner);
}

/* ---- places --------------------------------------------------------------------- */

static struct lv *set_place(struct lisp *h, const struct kl_node *place, struct lv *v, struct lv_frame *env)
{
	if (place->kind == KL_N_SYM) {
		const char *name = lv_symname(h, place);
		struct lv **slot = lookup(h, name, env);
		if (!slot) {
			struct lv_global *g = lv_global(h, name, true);
			g->val = v;
			return v;
		}
		struct lv_global *g = lv_global(h, name, false);
		if (g && g->constant && slot == &g->val)
			return lv_err(h, place, "%s is a constant", kl_name(place));
		*slot = v;
		return v;
	}
	const char *head = kl_head(place);
	if (head && (!strcmp(head, "aref") || !strcmp(head, "elt") || !strcmp(head, "svref")) && place->nitems == 3) {
		struct lv *vec, *i;
		TRY(vec = lv_eval(h, place->items[1], env));
		TRY(i = lv_eval(h, place->items[2], env));
		if (vec->k != LV_VEC || i->k != LV_INT || i->u.i < 0 || (size_t)i->u.i >= vec->u.vec.len)
			return lv_err(h, place, "index out of range or not a vector");
		vec->u.vec.items[i->u.i] = v;
		return v;
	}
	if (head && (!strcmp(head, "car") || !strcmp(head, "cdr") || !strcmp(head, "first") ||
		     !strcmp(head, "rest")) && place->nitems == 2) {
		struct lv *c;
		TRY(c = lv_eval(h, place->items[1], env));
		if (c->k != LV_CONS)
			return lv_err(h, place, "%s of a non-list", head);
		*((head[0] == 'c' && head[1] == 'a') || head[0] == 'f' ? &c->u.cons.car : &c->u.cons.cdr) = v;
		return v;
	}
	char buf[80];
	kl_node_str(place, buf, sizeof(buf));
	return lv_err(h, place, "cannot set %s: places are variables, aref/elt, car/cdr", buf);
}

static struct lv *sf_setf(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (n->nitems % 2 == 0)
		return lv_err(h, n, "%s needs PLACE VALUE pairs", kl_name(n->items[0]));
	struct lv *v = LNIL;
	for (uint32_t i = 1; i + 1 < n->nitems; i += 2) {
		TRY(v = lv_eval(h, n->items[i + 1], env));
		TRY(set_place(h, n->items[i], lv_primary(v), env));
	}
	return lv_primary(v);
}

static struct lv *sf_incf(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "a place"))
		return NULL;
	struct lv *old, *d = lv_int(h, 1);
	TRY(old = lv_eval(h, n->items[1], env));
	if (n->nitems > 2)
		TRY(d = lv_eval(h, n->items[2], env));
	if (old->k != LV_INT || d->k != LV_INT)
		return lv_err(h, n, "%s of a non-integer", kl_name(n->items[0]));
	bool dec = kl_is_sym(n->items[0], "decf");
	uint64_t x = (uint64_t)old->u.i, y = (uint64_t)d->u.i;     /* 64-bit, wrapping */
	return set_place(h, n->items[1], lv_int(h, (int64_t)(dec ? x - y : x + y)), env);
}

static struct lv *sf_push(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 3, "a value and a place"))
		return NULL;
	struct lv *x, *l;
	TRY(x = lv_eval(h, n->items[1], env));
	TRY(l = lv_eval(h, n->items[2], env));
	return set_place(h, n->items[2], lv_cons(h, lv_primary(x), l), env);
}

static struct lv *sf_pop(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "a place"))
		return NULL;
	struct lv *l;
	TRY(l = lv_eval(h, n->items[1], env));
	if (l->k != LV_CONS)
		return LNIL;
	TRY(set_place(h, n->items[1], l->u.cons.cdr, env));
	return l->u.cons.car;
}

/* ---- definitions ---------------------------------------------------------------- */

static struct lv *sf_defun(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	(void)env;
	if (lv_need(h, n, 3, "a name and a lambda list") )
		return NULL;
	if (n->items[1]->kind != KL_N_SYM || (n->items[2]->kind != KL_N_LIST && !kl_is_sym(n->items[2], "nil")))
		return lv_err(h, n, "defun needs a name and a lambda list");
	const char *name = lv_symname(h, n->items[1]);
	uint32_t from = 3;
	if (from < n->nitems - 1 && n->items[from]->kind == KL_N_STR)
		from++;                   /* the docstring */
	lv_global(h, name, true)->fn = make_closure(h, name, n->items[2], n, from, NULL);
	return lv_sym(h, name);
}

struct lv *lv_defvar(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "a name") )
		return NULL;
	if (n->items[1]->kind != KL_N_SYM)
		return lv_err(h, n->items[1], "%s needs a name", kl_name(n->items[0]));
	const char *name = lv_symname(h, n->items[1]);
	struct lv_global *g = lv_global(h, name, true);
	bool defvar = kl_is_sym(n->items[0], "defvar"), constant = kl_is_sym(n->items[0], "defconstant");
	if (n->nitems > 2 && !(defvar && g->val)) {
		struct lv *v;
		TRY(v = lv_eval(h, n->items[2], env));
		g->val = lv_primary(v);
	}
	g->constant = constant;
	return lv_sym(h, name);
}

static struct lv *sf_noop(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	(void)h, (void)n, (void)env;
	return LNIL;
}

/* `x: x's lists made anew, ,y evaluated and ,@z's elements spliced in; a list keeps whether it
 * was written in brackets (vector) */
static struct lv *qq(struct lisp *h, const struct kl_node *x, struct lv_frame *env)
{
	if (x->kind != KL_N_LIST || !x->nitems)
		return lv_from_node(h, x);
	const char *hd = kl_head(x);
	if (hd && !strcmp(hd, "unquote") && x->nitems == 2)
		return lv_primary(lv_eval(h, x->items[1], env));
	if (!lv_stack_ok(h, x, "backquoted lists"))
		return NULL;
	struct lv *head = LNIL, **tail = &head;
	for (uint32_t i = 0; i < x->nitems; i++) {
		const struct kl_node *it = x->items[i];
		const char *ih = kl_head(it);
		if (ih && !strcmp(ih, "unquote-splicing") && it->nitems == 2) {
			struct lv *l;
			TRY(l = lv_eval(h, it->items[1], env));
			l = lv_primary(l);
			if ((l->k != LV_CONS && l->k != LV_NIL) || lv_list_len(h, it, l, ",@") < 0)
				return h->exc ? NULL : lv_err(h, it, ",@: %s is not a list", lv_brief(h, l));
			for (; l->k == LV_CONS; l = l->u.cons.cdr) {
				*tail = lv_cons(h, l->u.cons.car, LNIL);
				tail = &(*tail)->u.cons.cdr;
			}
			continue;
		}
		struct lv *v;
		TRY(v = qq(h, it, env));
		*tail = lv_cons(h, v, LNIL);
		tail = &(*tail)->u.cons.cdr;
	}
	if (head->k == LV_CONS)
		head->u.cons.vector = x->vector;
	return head;
}

static struct lv *sf_quasiquote(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "a form"))
		return NULL;
	return qq(h, n->items[1], env);
}

/* (destructuring-bind LAMBDA-LIST FORM BODY...) */
static struct lv *sf_destructuring_bind(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 3, "a lambda list and a form"))
		return NULL;
	if (n->items[1]->kind != KL_N_LIST)
		return lv_err(h, n->items[1], "destructuring-bind needs a lambda list");
	struct lv *v;
	TRY(v = lv_eval(h, n->items[2], env));
	struct lv *l = lv_cons(h, lv_primary(v), LNIL);
	struct lv_frame *inner = env;
	const struct kl_node *wrap = &(struct kl_node){ .kind = KL_N_LIST, .span = n->items[1]->span,
		.items = (struct kl_node *[]){ n->items[1] }, .nitems = 1 };
	TRY(lv_bind(h, n, "destructuring-bind", wrap, &l->u.cons.car, 1, &inner));
	return lv_body_from(h, n, 3, inner);
}

static struct lv *sf_eval_when(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	return lv_progn(h, ITEMS(n) + 2, n->nitems > 2 ? n->nitems - 2 : 0, env);
}

static struct lv *sf_with_output_to_string(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "(VAR)") || n->items[1]->kind != KL_N_LIST || !n->items[1]->nitems)
		return h->exc ? NULL : lv_err(h, n, "with-output-to-string needs (VAR)");
	struct lv *s = kl_arena_new(&h->a, struct lv);
	s->k = LV_STREAM;
	s->u.stream.string = true;
	struct lv_frame *inner = env;
	const char *name = lv_var_name(h, n->items[1]->items[0], "with-output-to-string's variable");
	if (!name)
		return NULL;
	lv_push_frame(h, &inner, name, s);
	TRY(lv_body_from(h, n, 2, inner));
	struct lv *r = lv_str(h, s->u.stream.text.p ? s->u.stream.text.p : "", s->u.stream.text.len);
	lv_text_free(h, &s->u.stream.text);
	return r;
}

static struct lv *sf_vector(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	(void)env;
	struct lv *v = lv_vec(h, n->nitems - 1);
	for (uint32_t i = 1; i < n->nitems; i++)
		v->u.vec.items[i - 1] = lv_from_node(h, n->items[i]);
	return v;
}

static const struct lv_special specials[] = {
	{ "%vector", sf_vector },
	{ "quote", sf_quote }, { "function", sf_function }, { "lambda", sf_lambda },
	{ "if", sf_if }, { "when", sf_when }, { "unless", sf_when }, { "cond", sf_cond },
	{ "case", sf_case }, { "ecase", sf_case }, { "and", sf_and }, { "or", sf_and },
	{ "progn", sf_progn }, { "prog1", sf_prog1 }, { "let", sf_let }, { "let*", sf_let },
	{ "multiple-value-bind", sf_mvbind }, { "setf", sf_setf }, { "setq", sf_setf },
	{ "incf", sf_incf }, { "decf", sf_incf }, { "push", sf_push }, { "pop", sf_pop },
	{ "defun", sf_defun }, { "defparameter", lv_defvar }, { "defvar", lv_defvar },
	{ "defconstant", lv_defvar }, { "eval-when", sf_eval_when },
	{ "quasiquote", sf_quasiquote }, { "destructuring-bind", sf_destructuring_bind },
	{ "with-output-to-string", sf_with_output_to_string }, { "declare", sf_noop },
	{ "require", sf_noop }, { "load-system", sf_noop }, { "in-package", sf_noop },
	{ "defpackage", sf_noop }, { "use-package", sf_noop }, { NULL, NULL },
};

/* the core's special forms: this file's, control.c's, loop.c's */
static const struct lv_special *const core_forms[] = { specials, lv_control_forms, lv_loop_forms };

void lv_special_names(lv_name_fn fn, void *ctx)
{
	for (size_t t = 0; t < sizeof(core_forms) / sizeof(core_forms[0]); t++)
		for (const struct lv_special *s = core_forms[t]; s->name; s++)
			if (*s->name != '%')
				fn(ctx, s->name);
}

/* the layer's special forms first, then the core's */
static lv_special_fn find_special(struct lisp *h, const char *name)
{
	lv_special_fn r = h->layer && h->layer->special ? h->layer->special(h, name) : NULL;
	if (r)
		return r;
	for (size_t t = 0; t < sizeof(core_forms) / sizeof(core_forms[0]); t++)
		for (const struct lv_special *s = core_forms[t]; s->name; s++)
			if (!strcmp(name, s->name))
				return s->fn;
	return NULL;
}

/* ---- application ---------------------------------------------------------------- */

/* Entering a form or a call: false, with the error raised at n, when LV_MAX_DEPTH are open
 * (before the C stack runs out); else leave() when it is done. */
static bool enter(struct lisp *h, const struct kl_node *n)
{
	if (h->depth >= LV_MAX_DEPTH) {
		lv_err(h, n, "stack overflow: forms and calls nested more than %d deep", LV_MAX_DEPTH);
		return false;
	}
	if (!lv_stack_ok(h, n, "forms and calls"))
		return false;
	h->depth++;
	return true;
}

static struct lv *leave(struct lisp *h, struct lv *v)
{
	h->depth--;
	return v;
}

static struct lv *apply(struct lisp *h, const struct kl_node *call, struct lv *f, struct lv **args, int n)
{
	if (f->k == LV_BUILTIN) {
		if (n < f->u.bi.min || (f->u.bi.max >= 0 && n > f->u.bi.max))
			return lv_err(h, call, "%s takes %d%s argument%s, not %d", f->u.bi.name, f->u.bi.min,
				      f->u.bi.max < 0 ? " or more" : f->u.bi.max > f->u.bi.min ? " or more" : "",
				      f->u.bi.min == 1 && f->u.bi.max == 1 ? "" : "s", n);
		h->self = f;
		return f->u.bi.fn(h, call, args, n);
	}
	if (f->k != LV_FN)
		return lv_err(h, call, "not a function");
	struct lv_frame *env = f->u.fn.env;
	struct lv *v = NULL;
	if (lv_bind(h, call, f->u.fn.name, f->u.fn.params, args, n, &env)) {
		v = lv_progn(h, f->u.fn.body, f->u.fn.nbody, env);
		if (!v && f->u.fn.name)          /* (return-from NAME) inside defun NAME */
			lv_caught_return(h, f->u.fn.name, &v);
	}
	return v;
}

struct lv *lv_apply(struct lisp *h, const struct kl_node *call, struct lv *f, struct lv **args, int n)
{
	if (lv_stop(h, call) || !enter(h, call))
		return NULL;
	return leave(h, apply(h, call, f, args, n));
}

static struct lv *eval_call(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	const struct kl_node *head = n->items[0];
	struct lv *f = NULL;
	if (head->kind == KL_N_SYM) {
		f = lv_function(h, lv_symname(h, head));
		if (!f)
			return lv_err(h, head, "undefined function %s%s", kl_name(head),
				      h->layer && h->layer->undefined_note ? h->layer->undefined_note : "");
	} else if (kl_head(head) && !strcmp(kl_head(head), "lambda")) {
		TRY(f = lv_eval(h, head, env));
	} else {
		return lv_err(h, head, "a call needs a function name");
	}
	int na = (int)n->nitems - 1;
	struct lv **args = kl_arena_array(&h->a, struct lv *, na ? na : 1);
	for (int i = 0; i < na; i++) {
		TRY(args[i] = lv_eval(h, n->items[i + 1], env));
		args[i] = lv_primary(args[i]);
	}
	return lv_apply(h, n, f, args, na);
}

static struct lv *eval_list(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (n->items[0]->kind == KL_N_SYM) {
		lv_special_fn sf = find_special(h, lv_symname(h, n->items[0]));
		if (sf)
			return sf(h, n, env);
	}
	return eval_call(h, n, env);
}

struct lv *lv_eval(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	switch (n->kind) {
	case KL_N_INT:
	case KL_N_FLOAT:
	case KL_N_STR:
	case KL_N_KEY:
		return lv_from_node(h, n);
	case KL_N_SYM: {
		const char *name = lv_symname(h, n);
		if (!strcmp(name, "nil"))
			return LNIL;
		if (!strcmp(name, "t"))
			return LT;
		struct lv **slot = lookup(h, name, env), *v;
		if (slot)
			return *slot;
		if (h->layer && h->layer->unbound && (v = h->layer->unbound(h, name)))
			return v;
		return lv_err(h, n, "unbound variable %s", kl_name(n));
	}
	case KL_N_LIST: break;
	}
	if (!n->nitems)
		return LNIL;
	if (lv_stop(h, n) || !enter(h, n))
		return NULL;
	return leave(h, eval_list(h, n, env));
}

/* eval of a datum: a kiln form (or a progn of them) joins the kiln program; a datum read from
 * the file is evaluated from its node; one built at run time cannot be (no reader here). */
static struct lv *eval_value(struct lisp *h, struct lv *form, const struct kl_node *at)
{
	if (form->k != LV_CONS)
		return form->k == LV_SYM ? lv_err(h, at, "eval of a symbol is not supported") : form;
	struct lv *head = form->u.cons.car;
	if (head->k == LV_SYM && !strcmp(head->u.name, "progn")) {
		struct lv *v = LNIL;
		for (struct lv *l = form->u.cons.cdr; l->k == LV_CONS; l = l->u.cons.cdr)
			TRY(v = lv_eval_value(h, l->u.cons.car, at));
		return v;
	}
	if (form->u.cons.src)
		return lv_eval(h, form->u.cons.src, NULL);
	if (h->layer && h->layer->eval_built)
		return h->layer->eval_built(h, form, at);
	return lv_err(h, at, "eval of a form built at run time is not supported");
}

struct lv *lv_eval_value(struct lisp *h, struct lv *form, const struct kl_node *at)
{
	if (lv_stop(h, at) || !enter(h, at))
		return NULL;
	return leave(h, eval_value(h, form, at));
}

/* ---- the top ------------------------------------------------------------------------ */

/* 3/4 of the stack's rlimit (at most 256 MiB), for lv_stack_ok */
static size_t stack_share(void)
{
	struct rlimit rl;
	size_t cap = (size_t)256 << 20, lim = 8 << 20;
	if (!getrlimit(RLIMIT_STACK, &rl))
		lim = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > cap ? cap : (size_t)rl.rlim_cur;
	return lim / 4 * 3;
}

/* out of memory: a condition made without allocating */
static struct lv lv_oom = { .k = LV_COND, .u.cond = { "error", "out of memory" } };

/* form evaluated, or (form NULL) f applied to args, at the top: the C stack's start noted for
 * lv_stack_ok, and out of memory the error at `at` */
static struct lv *at_top(struct lisp *h, const struct kl_node *at, const struct kl_node *form, struct lv *f,
			 struct lv **args, int n)
{
	jmp_buf oom, *outer = h->a.oom;
	struct lv *volatile v = NULL;
	char *top = h->stack_top;
	if (!top) {
		h->stack_top = __builtin_frame_address(0);
		h->stack_max = stack_share();
	}
	h->a.oom = &oom;
	if (!setjmp(oom)) {
		v = form ? lv_eval(h, form, NULL) : lv_apply(h, at, f, args, n);
	} else {
		h->depth = 0;
		h->exc = LV_EXC_CONDITION;
		h->cond = &lv_oom;
		h->exc_span = at->span;
		v = NULL;
	}
	h->a.oom = outer;
	h->stack_top = top;
	return v;
}

struct lv *lisp_eval_top(struct lisp *h, const struct kl_node *form)
{
	return at_top(h, form, form, NULL, NULL, 0);
}

struct lv *lisp_apply_top(struct lisp *h, const struct kl_node *call, struct lv *f, struct lv **args, int n)
{
	return at_top(h, call, NULL, f, args, n);
}

void lisp_init(struct lisp *L, const struct lisp_layer *layer)
{
	L->layer = layer;
	L->out_bol = L->err_bol = true;
	L->max_elems = LV_MAX_ELEMS;
	L->max_str = LV_MAX_STR;
	lv_std_streams(L);
}
