/* bind.c — the core's one lambda-list binder, for defun, lambda, destructuring-bind and a
 * layer's own (the compiler's macros): required parameters, each a name or a list that
 * destructures its argument (nested, as defmacro's do), &optional and &key with defaults
 * evaluated where the earlier parameters are bound, &rest and &body; &aux and
 * &allow-other-keys end the list. */
#include "lisp.h"
#include <string.h>

struct lv *lv_push_frame(struct lisp *h, struct lv_frame **env, const char *name, struct lv *v)
{
	struct lv_frame *f = kl_arena_new(&h->a, struct lv_frame);
	f->name = name;
	f->val = v;
	f->up = *env;
	*env = f;
	return v;
}

const struct kl_node *lv_origin(const struct lv *v, const struct kl_node *at)
{
	return v->node ? v->node : v->k == LV_CONS && v->u.cons.src ? v->u.cons.src : at;
}

static struct lv *too_few(struct lisp *h, const struct kl_node *call, const char *fn, int n, const struct kl_node *p)
{
	if (fn)
		return lv_err(h, call, "%s: too few arguments (%d)", fn, n);
	return lv_err(h, p, "too few arguments (missing %s)", p->kind == KL_N_SYM ? kl_name(p) : "a list");
}

const char *lv_var_name(struct lisp *h, const struct kl_node *n, const char *what)
{
	if (n->kind == KL_N_SYM && strcmp(n->str, "nil") && strcmp(n->str, "t"))
		return lv_symname(h, n);
	char buf[64];
	kl_node_str(n, buf, sizeof(buf));
	lv_err(h, n, "%s must be a name, not %s", what, buf);
	return NULL;
}

/* a list's elements as an array (*n of them); NULL with the error raised at at when v is not
 * a list or is circular */
static struct lv **elements(struct lisp *h, const struct kl_node *at, const char *fn, struct lv *v, int *n)
{
	if (v->k != LV_CONS && v->k != LV_NIL) {
		lv_err(h, lv_origin(v, at), "%s%s%s is not a list to destructure", fn ? fn : "", fn ? ": " : "", lv_brief(h, v));
		return NULL;
	}
	int64_t len = lv_list_len(h, at, v, fn ? fn : "destructuring");
	if (len < 0 || len > INT32_MAX) {
		if (len > INT32_MAX)
			lv_err(h, at, "a list of %lld elements to destructure", (long long)len);
		return NULL;
	}
	struct lv **a = kl_arena_array(&h->a, struct lv *, (size_t)len + 1);
	for (int i = 0; v->k == LV_CONS; v = v->u.cons.cdr)
		a[i++] = v->u.cons.car;
	*n = (int)len;
	return a;
}

static bool takes_rest(const struct kl_node *ps)
{
	for (uint32_t i = 0; ps->kind == KL_N_LIST && i < ps->nitems; i++)
		if (kl_is_sym(ps->items[i], "&rest") || kl_is_sym(ps->items[i], "&body") || kl_is_sym(ps->items[i], "&key"))
			return true;
	return false;
}

struct lv *lv_bind(struct lisp *h, const struct kl_node *call, const char *fn, const struct kl_node *ps,
		   struct lv **args, int n, struct lv_frame **env)
{
	enum { REQ, OPT, REST, KEY } mode = REQ;
	int ai = 0;
	if (!lv_stack_ok(h, ps, "lambda lists"))
		return NULL;
	for (uint32_t i = 0; ps->kind == KL_N_LIST && i < ps->nitems; i++) {
		const struct kl_node *p = ps->items[i];
		if (kl_is_sym(p, "&optional")) { mode = OPT; continue; }
		if (kl_is_sym(p, "&rest") || kl_is_sym(p, "&body")) { mode = REST; continue; }
		if (kl_is_sym(p, "&key")) { mode = KEY; continue; }
		if (kl_is_sym(p, "&aux") || kl_is_sym(p, "&allow-other-keys"))
			break;
		if (mode == REQ && p->kind == KL_N_LIST) {     /* a list to destructure */
			if (ai >= n)
				return too_few(h, call, fn, n, p);
			int m;
			struct lv **sub = elements(h, call, fn, args[ai++], &m);
			if (!sub || !lv_bind(h, call, fn, p, sub, m, env))
				return NULL;
			continue;
		}
		const struct kl_node *name = p->kind == KL_N_LIST && p->nitems ? p->items[0] : p;
		const struct kl_node *def = p->kind == KL_N_LIST && p->nitems > 1 ? p->items[1] : NULL;
		if (name->kind != KL_N_SYM || kl_is_sym(name, "nil") || kl_is_sym(name, "t"))
			return lv_err(h, p, "a parameter must be a symbol, a list to destructure, or (NAME DEFAULT) "
				      "after &optional or &key");
		const char *nm = lv_symname(h, name);
		struct lv *v = NULL;
		if (mode == REQ) {
			if (ai >= n)
				return too_few(h, call, fn, n, p);
			v = args[ai++];
		} else if (mode == OPT) {
			if (ai < n)
				v = args[ai++];
		} else if (mode == REST) {
			v = LNIL;
			for (int j = n - 1; j >= ai; j--)
				v = lv_cons(h, args[j], v);
		} else {
			for (int j = ai; j + 1 < n; j += 2)
				if (args[j]->k == LV_KEY && !strcmp(args[j]->u.name, nm))
					v = args[j + 1];
		}
		if (!v && !(v = def ? lv_eval(h, def, *env) : LNIL))
			return NULL;
		lv_push_frame(h, env, nm, v);
	}
	if (ai < n && !takes_rest(ps))
		return fn ? lv_err(h, call, "%s: too many arguments (%d)", fn, n)
			  : lv_err(h, lv_origin(args[ai], call), "too many arguments");
	return LT;
}
