/* loop.c — the iteration forms: dolist, dotimes and loop (the simple loop, and the extended
 * loop's common clauses). Each turn calls lv_stop (Ctrl-C, the step budget); a (return) inside
 * leaves through the loop's nil block (lv_caught_return). */
#include "lisp.h"
#include <string.h>

#define ITEMS(n) ((const struct kl_node *const *)(n)->items)
#define TRY(x) do { if (!(x)) return NULL; } while (0)

static struct lv *sf_dolist(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "(VAR LIST)") || n->items[1]->kind != KL_N_LIST || n->items[1]->nitems < 2)
		return h->exc ? NULL : lv_err(h, n, "%s needs (VAR FORM)", kl_name(n->items[0]));
	const struct kl_node *spec = n->items[1];
	bool times = kl_is_sym(n->items[0], "dotimes");
	struct lv *l, *v = LNIL;
	TRY(l = lv_eval(h, spec->items[1], env));
	l = lv_primary(l);
	if (times && l->k != LV_INT)
		return lv_err(h, spec->items[1], "dotimes needs an integer count");
	const char *var = lv_var_name(h, spec->items[0], "the loop variable");
	if (!var)
		return NULL;
	struct lv_frame *inner = env;      /* one binding, set at each turn (as SBCL does) */
	lv_push_frame(h, &inner, var, LNIL);
	for (int64_t i = 0;; i++) {
		struct lv *x;
		if (lv_stop(h, n))
			return NULL;
		if (times) {
			if (i >= l->u.i)
				break;
			x = lv_int(h, i);
		} else if (l->k == LV_CONS) {
			x = l->u.cons.car;
			l = l->u.cons.cdr;
		} else if (l->k == LV_VEC && (size_t)i < l->u.vec.len) {
			x = l->u.vec.items[i];
		} else {
			break;
		}
		inner->val = x;
		if (!lv_body_from(h, n, 2, inner))
			return lv_caught_return(h, "nil", &v) ? v : NULL;
	}
	return LNIL;
}

/* (loop FORM...) forever, or the extended loop's common clauses: repeat, for VAR in / from /
 * to / below / by / = ... then, while, until, do, collect, sum, count, finally, return. */
struct loop_var { const char *name; const struct kl_node *list, *from, *to, *by, *eq, *then; bool below, in, down; struct lv *cur, *end, *step; };

static bool loop_word(const struct kl_node *x, const char *w)
{
	return x->kind == KL_N_SYM ? !strcmp(x->str, w) : x->kind == KL_N_KEY && !strcmp(x->str, w);
}

/* the words of a for clause after its variable */
static const char *const for_words[] = {
	"in", "across", "from", "upfrom", "downfrom", "to", "upto", "downto", "below", "above", "by", "=", "then",
};

static bool is_for_word(const struct kl_node *x)
{
	for (size_t i = 0; i < sizeof(for_words) / sizeof(for_words[0]); i++)
		if (loop_word(x, for_words[i]))
			return true;
	return false;
}

/* loop's iteration clauses, read before it runs: its for clauses into vars (8 at most, *nv
 * of them) and its repeat count's form. 0, or -1 with the error raised. */
static int loop_clauses(struct lisp *h, const struct kl_node *n, struct loop_var *vars, int *nv,
			const struct kl_node **repeat)
{
	for (uint32_t i = 1; i < n->nitems; i++) {
		const struct kl_node *x = n->items[i];
		if (loop_word(x, "repeat") && i + 1 < n->nitems) {
			*repeat = n->items[++i];
		} else if ((loop_word(x, "for") || loop_word(x, "as")) && i + 2 < n->nitems) {
			if (*nv == 8) {
				lv_err(h, x, "loop: at most 8 for clauses");
				return -1;
			}
			struct loop_var *lv = &vars[(*nv)++];
			memset(lv, 0, sizeof(*lv));
			if (!(lv->name = lv_var_name(h, n->items[++i], "loop's for variable")))
				return -1;
			while (i + 2 < n->nitems + 1 && i + 1 < n->nitems) {
				const struct kl_node *w = n->items[i + 1];
				if (i + 2 >= n->nitems) {
					lv_err(h, w, "loop: %s needs a form", kl_name(w));
					return -1;
				}
				const struct kl_node *e = n->items[i + 2];
				if (loop_word(w, "in") || loop_word(w, "across")) lv->list = e, lv->in = loop_word(w, "in");
				else if (loop_word(w, "from") || loop_word(w, "upfrom")) lv->from = e;
				else if (loop_word(w, "downfrom")) lv->from = e, lv->down = true;
				else if (loop_word(w, "to") || loop_word(w, "upto")) lv->to = e;
				else if (loop_word(w, "downto")) lv->to = e, lv->down = true;
				else if (loop_word(w, "below")) lv->to = e, lv->below = true;
				else if (loop_word(w, "above")) lv->to = e, lv->below = true, lv->down = true;
				else if (loop_word(w, "by")) lv->by = e;
				else if (loop_word(w, "=")) lv->eq = e;
				else if (loop_word(w, "then")) lv->then = e;
				else break;
				i += 2;
			}
			if (!lv->list && !lv->from && !lv->to && !lv->eq) {
				lv_err(h, x, "loop: for %s needs in, across, from, to, below or =", lv->name);
				return -1;
			}
		}
	}
	return 0;
}

/* One turn of loop's for clauses (the last bound innermost in inner): each variable advanced
 * (not on the first turn, iter 0) and tested. 1 when one is done, 0 to go on, -1 on an error. */
static int loop_advance(struct lisp *h, const struct kl_node *n, struct loop_var *vars, int nv,
			struct lv_frame *inner, int64_t iter)
{
	struct lv_frame *f = inner;
	for (int k = nv - 1; k >= 0; k--, f = f->up) {
		struct loop_var *lv = &vars[k];
		if (lv->list) {
			if (lv->in) {
				if (lv->cur->k != LV_CONS)
					return 1;
				f->val = lv->cur->u.cons.car;
				lv->cur = lv->cur->u.cons.cdr;
			} else {
				if (lv->cur->k != LV_VEC && lv->cur->k != LV_STR) {
					lv_err(h, n, "loop across needs a vector");
					return -1;
				}
				size_t len = lv->cur->k == LV_VEC ? lv->cur->u.vec.len : lv->cur->u.str.len;
				if ((size_t)lv->end->u.i >= len)
					return 1;
				f->val = lv->cur->k == LV_VEC ? lv->cur->u.vec.items[lv->end->u.i]
						     : lv_int(h, (unsigned char)lv->cur->u.str.s[lv->end->u.i]);
				lv->end = lv_int(h, lv->end->u.i + 1);
			}
		} else if (lv->eq) {
			if (iter && lv->then) {
				struct lv *x;
				if (!(x = lv_eval(h, lv->then, inner)))
					return -1;
				f->val = lv_primary(x);
			}
		} else {
			int64_t x = f->val->u.i, e = lv->end ? lv->end->u.i : 0;
			if (iter)
				f->val = lv_int(h, x = (int64_t)(lv->down ? (uint64_t)x - (uint64_t)lv->step->u.i
									   : (uint64_t)x + (uint64_t)lv->step->u.i));
			if (lv->end && (lv->down ? (lv->below ? x <= e : x < e) : (lv->below ? x >= e : x > e)))
				return 1;
		}
	}
	return 0;
}

/* The extended loop as it runs: its for variables (bound innermost last in inner), its repeat
 * count (-1: none) and what collect (acc, tail) and sum/count (sum) have gathered. */
struct loop_run {
	struct loop_var vars[8];
	int nv;
	int64_t count;
	struct lv_frame *inner;
	struct lv *acc, **tail;
	int64_t sum;
	bool summing;
};

/* The repeat count and the for variables' first values, bound in r->inner. LT, or NULL. */
static struct lv *loop_start(struct lisp *h, const struct kl_node *n, const struct kl_node *repeat,
			     struct loop_run *r)
{
	if (repeat) {
		struct lv *c;
		TRY(c = lv_eval(h, repeat, r->inner));
		if (c->k != LV_INT)
			return lv_err(h, repeat, "loop repeat needs an integer");
		r->count = c->u.i;
	}
	for (int k = 0; k < r->nv; k++) {
		struct loop_var *lv = &r->vars[k];
		struct lv *x = LNIL;
		if (lv->list) {
			TRY(lv->cur = lv_eval(h, lv->list, r->inner));
			lv->cur = lv_primary(lv->cur);
			lv->end = lv_int(h, 0);
		} else if (lv->eq) {
			TRY(x = lv_eval(h, lv->eq, r->inner));
		} else {
			x = lv_int(h, 0);
			if (lv->from)
				TRY(x = lv_eval(h, lv->from, r->inner));
			lv->end = NULL;
			if (lv->to)
				TRY(lv->end = lv_eval(h, lv->to, r->inner));
			lv->step = lv_int(h, 1);
			if (lv->by)
				TRY(lv->step = lv_eval(h, lv->by, r->inner));
			if (x->k != LV_INT || (lv->end && lv->end->k != LV_INT) || lv->step->k != LV_INT)
				return lv_err(h, n, "loop: for %s needs integers", lv->name);
		}
		lv_push_frame(h, &r->inner, lv->name, lv_primary(x));
	}
	return LT;
}

/* sum/summing and count/counting: c added to r->sum (count: 1 when c is true). false, with
 * the error raised at at, when a sum's c is no integer. */
static bool loop_sum(struct lisp *h, const struct kl_node *x, const struct kl_node *at, struct loop_run *r,
		     struct lv *c)
{
	r->summing = true;
	if (x->str[0] == 'c')
		r->sum = (int64_t)((uint64_t)r->sum + lv_true(c));
	else if (c->k == LV_INT)
		r->sum = (int64_t)((uint64_t)r->sum + (uint64_t)c->u.i);
	else
		return lv_err(h, at, "loop sum of a non-integer"), false;
	return true;
}

/* How a turn of the loop's clauses ended. */
enum loop_turn { TURN_ON, TURN_DONE, TURN_EXIT };

/* The clause at n->items[*i] run (for, repeat and finally skipped: loop_start and sf_loop run
 * them), *i moved past it. TURN_DONE when while/until ends the loop; TURN_EXIT when the loop
 * returns *out (NULL: an error, or an exit that is not the loop's). */
static enum loop_turn loop_clause(struct lisp *h, const struct kl_node *n, uint32_t *i, struct loop_run *r,
				  struct lv **out)
{
	const struct kl_node *x = n->items[*i];
	struct lv *c;
	*out = NULL;
	if (loop_word(x, "repeat") || loop_word(x, "finally")) {
		++*i;
		return TURN_ON;
	}
	if (loop_word(x, "for") || loop_word(x, "as")) {
		++*i;
		while (*i + 2 < n->nitems && is_for_word(n->items[*i + 1]))
			*i += 2;
		return TURN_ON;
	}
	bool is_do = loop_word(x, "do") || loop_word(x, "doing");
	if (*i + 1 >= n->nitems && !is_do)
		return lv_err(h, x, "loop: %s needs a form", kl_name(x)), TURN_EXIT;
	if (is_do) {
		while (*i + 1 < n->nitems && n->items[*i + 1]->kind == KL_N_LIST)
			if (!lv_eval(h, n->items[++*i], r->inner))
				return lv_caught_return(h, "nil", out), TURN_EXIT;
		return TURN_ON;
	}
	bool known = loop_word(x, "while") || loop_word(x, "until") || loop_word(x, "collect") ||
		     loop_word(x, "collecting") || loop_word(x, "sum") || loop_word(x, "summing") ||
		     loop_word(x, "count") || loop_word(x, "counting") || loop_word(x, "return");
	if (!known)
		return lv_err(h, x, "loop: unknown clause %s (supported: repeat for while until do collect "
			      "sum count return finally)", kl_name(x)), TURN_EXIT;
	if (!(c = lv_eval(h, n->items[++*i], r->inner)))
		return TURN_EXIT;
	c = lv_primary(c);
	if (loop_word(x, "while") || loop_word(x, "until"))
		return lv_true(c) != loop_word(x, "while") ? TURN_DONE : TURN_ON;
	if (loop_word(x, "return"))
		return *out = c, TURN_EXIT;
	if (loop_word(x, "collect") || loop_word(x, "collecting")) {
		*r->tail = lv_cons(h, c, LNIL);
		r->tail = &(*r->tail)->u.cons.cdr;
		return TURN_ON;
	}
	return loop_sum(h, x, n->items[*i], r, c) ? TURN_ON : TURN_EXIT;
}

/* (loop FORM...): forever, until a (return) */
static struct lv *simple_loop(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	struct lv *v = LNIL;
	for (;;)
		if (lv_stop(h, n) || !lv_progn(h, ITEMS(n) + 1, n->nitems - 1, env))
			return lv_caught_return(h, "nil", &v) ? v : NULL;
}

static struct lv *sf_loop(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	bool simple = true;
	for (uint32_t i = 1; i < n->nitems; i++)
		if (n->items[i]->kind == KL_N_SYM || n->items[i]->kind == KL_N_KEY)
			simple = false;
	if (simple)
		return simple_loop(h, n, env);
	struct loop_run r = { .count = -1, .inner = env, .acc = LNIL };
	r.tail = &r.acc;
	const struct kl_node *repeat = NULL;
	if (loop_clauses(h, n, r.vars, &r.nv, &repeat) || !loop_start(h, n, repeat, &r))
		return NULL;
	for (int64_t iter = 0; r.count < 0 || iter < r.count; iter++) {
		if (lv_stop(h, n))
			return NULL;
		int adv = loop_advance(h, n, r.vars, r.nv, r.inner, iter);
		if (adv < 0)
			return NULL;
		if (adv)
			break;
		enum loop_turn t = TURN_ON;
		for (uint32_t i = 1; i < n->nitems && t == TURN_ON; i++) {
			struct lv *out;
			if ((t = loop_clause(h, n, &i, &r, &out)) == TURN_EXIT)
				return out;
		}
		if (t == TURN_DONE)
			break;
	}
	for (uint32_t i = 1; i + 1 < n->nitems; i++)
		if (loop_word(n->items[i], "finally"))
			TRY(lv_eval(h, n->items[i + 1], r.inner));
	return r.summing ? lv_int(h, r.sum) : r.acc;
}

const struct lv_special lv_loop_forms[] = {
	{ "dolist", sf_dolist }, { "dotimes", sf_dolist }, { "loop", sf_loop }, { NULL, NULL },
};
