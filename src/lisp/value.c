/* value.c — the core's values (constructors, eql, equal), its globals, errors as conditions,
 * the step budget, Ctrl-C (through the layer) and the C stack's share (lv_stack_ok). */
#include "lisp.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct lv lv_nil_v = { .k = LV_NIL }, lv_t_v = { .k = LV_T };

bool lv_stop(struct lisp *h, const struct kl_node *n)
{
	if (h->max_steps && ++h->steps > h->max_steps) {
		lv_raise(h, n, "step-budget", "the step budget is spent");
		return true;
	}
	return h->layer && h->layer->interrupt && h->layer->interrupt(h, n);
}

bool lv_stack_ok(struct lisp *h, const struct kl_node *n, const char *what)
{
	char *here = __builtin_frame_address(0);
	if (!h->stack_top || here > h->stack_top || (size_t)(h->stack_top - here) < h->stack_max)
		return true;
	lv_err(h, n, "stack overflow: %s nested %d deep fill the C stack (%zu KiB)", what, h->depth, h->stack_max >> 10);
	return false;
}

struct lv *lv_int(struct lisp *h, int64_t i)
{
	struct lv *v = kl_arena_new(&h->a, struct lv);
	v->k = LV_INT;
	v->u.i = i;
	return v;
}

struct lv *lv_float(struct lisp *h, double d, bool single)
{
	struct lv *v = kl_arena_new(&h->a, struct lv);
	v->k = LV_FLOAT;
	v->u.fl.d = single ? (double)(float)d : d;
	v->u.fl.single = single;
	return v;
}

struct lv *lv_str(struct lisp *h, const char *s, size_t len)
{
	struct lv *v = kl_arena_new(&h->a, struct lv);
	v->k = LV_STR;
	v->u.str.s = kl_arena_strndup(&h->a, s, len);
	v->u.str.len = len;
	return v;
}

struct lv *lv_cstr(struct lisp *h, const char *s)
{
	return lv_str(h, s, strlen(s));
}

struct lv *lv_sym(struct lisp *h, const char *name)
{
	if (!strcmp(name, "nil"))
		return LNIL;
	if (!strcmp(name, "t"))
		return LT;
	struct lv *v = kl_arena_new(&h->a, struct lv);
	v->k = LV_SYM;
	v->u.name = name;
	return v;
}

struct lv *lv_cons(struct lisp *h, struct lv *car, struct lv *cdr)
{
	struct lv *v = kl_arena_new(&h->a, struct lv);
	v->k = LV_CONS;
	v->u.cons.car = car;
	v->u.cons.cdr = cdr;
	return v;
}

struct lv *lv_vec(struct lisp *h, size_t n)
{
	h->steps += h->max_steps ? n >> 10 : 0;      /* a budget counts the elements made too */
	struct lv *v = kl_arena_new(&h->a, struct lv);
	v->k = LV_VEC;
	v->u.vec.items = kl_arena_array(&h->a, struct lv *, n ? n : 1);
	v->u.vec.len = n;
	for (size_t i = 0; i < n; i++)
		v->u.vec.items[i] = LNIL;
	return v;
}

struct lv *lv_foreign(struct lisp *h, const struct lv_foreign_type *type, void *data)
{
	struct lv *v = kl_arena_new(&h->a, struct lv);
	v->k = LV_FOREIGN;
	v->u.foreign.type = type;
	v->u.foreign.data = data;
	return v;
}

void *lv_foreign_data(const struct lv *v, const struct lv_foreign_type *type)
{
	return v->k == LV_FOREIGN && v->u.foreign.type == type ? v->u.foreign.data : NULL;
}

struct lv *lv_bool(bool b)
{
	return b ? LT : LNIL;
}

bool lv_true(const struct lv *v)
{
	return v->k != LV_NIL;
}

int64_t lv_list_len(struct lisp *h, const struct kl_node *n, const struct lv *l, const char *fn)
{
	const struct lv *slow = l;      /* half as far: the two meet in a circle (Floyd) */
	int64_t len = 0;
	while (l->k == LV_CONS) {
		l = l->u.cons.cdr;
		if (!(++len & 1))
			slow = slow->u.cons.cdr;
		if (l == slow) {
			if (fn)
				lv_err(h, n, "%s: the list is circular", fn);
			return -1;
		}
	}
	h->steps += h->max_steps ? (uint64_t)len >> 6 : 0;   /* a budget counts the walk too */
	return len;
}

bool lv_eql(const struct lv *a, const struct lv *b)
{
	if (a == b)
		return true;
	if (a->k != b->k)
		return false;
	switch (a->k) {
	case LV_NIL:
	case LV_T: return true;
	case LV_INT: return a->u.i == b->u.i;
	case LV_FLOAT: return a->u.fl.single == b->u.fl.single && a->u.fl.d == b->u.fl.d &&
			      signbit(a->u.fl.d) == signbit(b->u.fl.d);
	case LV_SYM:
	case LV_KEY: return !strcmp(a->u.name, b->u.name);
	default: return false;
	}
}

/* equal: the cdrs in a loop, the cars by recursion (depth bounded); every 64 conses compared
 * a step (Ctrl-C, the budget: shared structure can make the walk exponential) */
static int equal_at(struct lisp *h, const struct kl_node *n, const struct lv *a, const struct lv *b, int depth,
		    uint64_t *work)
{
	for (uint64_t i = 0;; i++) {
		if (a->k == LV_STR && b->k == LV_STR)
			return a->u.str.len == b->u.str.len && !memcmp(a->u.str.s, b->u.str.s, a->u.str.len);
		if (a->k != LV_CONS || b->k != LV_CONS || a == b)
			return lv_eql(a, b);
		if (depth >= LV_MAX_DEPTH || !lv_stack_ok(h, n, "equal's lists")) {
			if (depth >= LV_MAX_DEPTH)
				lv_err(h, n, "equal: lists nested more than %d deep", LV_MAX_DEPTH);
			return -1;
		}
		if (i >= h->max_elems) {
			lv_err(h, n, "equal: lists longer than %zu elements (circular?)", h->max_elems);
			return -1;
		}
		if (!(++*work & 63) && lv_stop(h, n))
			return -1;
		int r = equal_at(h, n, a->u.cons.car, b->u.cons.car, depth + 1, work);
		if (r <= 0)
			return r;
		a = a->u.cons.cdr;
		b = b->u.cons.cdr;
	}
}

int lv_equal(struct lisp *h, const struct kl_node *n, const struct lv *a, const struct lv *b)
{
	uint64_t work = 0;
	return equal_at(h, n, a, b, 0, &work);
}

/* Symbols are found by their folded name without a package prefix (cl:incf is incf,
 * sb-sys:interactive-interrupt is interactive-interrupt), except bpf:'s, which name the
 * session's forms and are not the Common Lisp functions of the same name (bpf:map, map). */
const char *lv_symname(struct lisp *h, const struct kl_node *n)
{
	if (n->kind != KL_N_SYM && n->kind != KL_N_KEY)
		return "";                 /* callers check the kind; a name no symbol has */
	const char *s = n->str, *c = strrchr(s, ':');
	if (!c || c == s)
		return s;
	if (!strncmp(s, "bpf:", 4) && c == s + 3)
		return s;
	(void)h;
	return c + 1;
}

/* A datum as quote gives it; a list keeps its node, so a kiln form passed to eval is
 * compiled from its place in the file. `#(...)` reads as the symbol # before a list. */
static struct lv *list_from_node(struct lisp *h, const struct kl_node *n)
{
	if (kl_is_sym(n->nitems ? n->items[0] : NULL, "%vector")) {
		struct lv *v = lv_vec(h, n->nitems - 1);
		for (uint32_t j = 1; j < n->nitems; j++)
			v->u.vec.items[j - 1] = lv_from_node(h, n->items[j]);
		return v;
	}
	struct lv *head = LNIL, **tail = &head;
	for (uint32_t i = 0; i < n->nitems; i++) {
		struct lv *item;
		if (kl_is_sym(n->items[i], "#") && i + 1 < n->nitems && n->items[i + 1]->kind == KL_N_LIST) {
			const struct kl_node *l = n->items[++i];
			item = lv_vec(h, l->nitems);
			for (uint32_t j = 0; j < l->nitems; j++)
				item->u.vec.items[j] = lv_from_node(h, l->items[j]);
		} else {
			item = lv_from_node(h, n->items[i]);
		}
		*tail = lv_cons(h, item, LNIL);
		tail = &(*tail)->u.cons.cdr;
	}
	if (head->k == LV_CONS) {
		head->u.cons.src = n;
		head->u.cons.vector = n->vector;
	}
	return head;
}

struct lv *lv_from_node(struct lisp *h, const struct kl_node *n)
{
	struct lv *v = NULL;
	switch (n->kind) {
	case KL_N_INT: v = lv_int(h, n->ival); break;
	case KL_N_FLOAT: v = lv_float(h, n->fval, n->fsingle); break;
	case KL_N_STR: v = lv_cstr(h, n->str); break;
	case KL_N_KEY:
		v = kl_arena_new(&h->a, struct lv);
		v->k = LV_KEY;
		v->u.name = n->str;
		break;
	case KL_N_SYM:
		v = lv_sym(h, lv_symname(h, n));
		if (v->k != LV_SYM) {           /* nil and t: their own, to keep the node */
			struct lv *c = kl_arena_new(&h->a, struct lv);
			c->k = v->k;
			v = c;
		}
		break;
	case KL_N_LIST:
		if (n->nitems)
			return list_from_node(h, n);
		v = kl_arena_new(&h->a, struct lv);    /* (): its own nil, to keep the node */
		v->k = LV_NIL;
		break;
	}
	v->node = n;
	v->written = n->kind == KL_N_SYM || n->kind == KL_N_KEY ? kl_name(n) : NULL;
	return v;
}

struct lv *lv_raise(struct lisp *h, const struct kl_node *n, const char *type, const char *msg)
{
	struct lv *c = kl_arena_new(&h->a, struct lv);
	c->k = LV_COND;
	c->u.cond.type = type;
	c->u.cond.msg = kl_arena_strdup(&h->a, msg);
	h->exc = LV_EXC_CONDITION;
	h->cond = c;
	h->exc_span = n ? n->span : (struct kl_span){ &h->src, 1, 1 };
	return NULL;
}

struct lv *lv_err(struct lisp *h, const struct kl_node *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return lv_raise(h, n, "error", msg);
}

static unsigned name_hash(const char *s)
{
	unsigned x = 2166136261u;
	while (*s)
		x = (x ^ (unsigned char)*s++) * 16777619u;
	return x % LV_NGLOBAL;
}

struct lv_global *lv_global(struct lisp *h, const char *name, bool create)
{
	unsigned k = name_hash(name);
	for (struct lv_global *g = h->globals[k]; g; g = g->next)
		if (!strcmp(g->name, name))
			return g;
	if (!create)
		return NULL;
	struct lv_global *g = kl_arena_new(&h->a, struct lv_global);
	g->name = name;
	g->next = h->globals[k];
	h->globals[k] = g;
	return g;
}
