/* control.c — the special forms that leave a form early or catch what leaves it: block,
 * return and return-from (a non-local exit, L->exc LV_EXC_RETURN, caught by the block of its
 * name, a loop's nil block or the defun of its name), and the condition forms handler-case,
 * ignore-errors and unwind-protect (an error or Ctrl-C condition in flight, LV_EXC_CONDITION). */
#include "lisp.h"
#include <string.h>

#define ITEMS(n) ((const struct kl_node *const *)(n)->items)
#define TRY(x) do { if (!(x)) return NULL; } while (0)

bool lv_caught_return(struct lisp *h, const char *block, struct lv **out)
{
	if (h->exc != LV_EXC_RETURN || strcmp(h->ret_block, block))
		return false;
	h->exc = LV_EXC_NONE;
	*out = h->ret_val;
	return true;
}

static struct lv *sf_block(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "a name"))
		return NULL;
	struct lv *v = lv_progn(h, ITEMS(n) + 2, n->nitems - 2, env);
	const char *name = v ? NULL : lv_var_name(h, n->items[1], "a block's name");
	if (!v && name && lv_caught_return(h, name, &v))
		return v;
	return v;
}

static struct lv *sf_return(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	bool from = kl_is_sym(n->items[0], "return-from");
	if (from && lv_need(h, n, 2, "a block name"))
		return NULL;
	uint32_t vi = from ? 2 : 1;
	const char *block = from ? lv_var_name(h, n->items[1], "return-from's block") : "nil";
	if (!block)
		return NULL;
	struct lv *v = LNIL;
	if (vi < n->nitems)
		TRY(v = lv_eval(h, n->items[vi], env));
	h->exc = LV_EXC_RETURN;
	h->ret_block = block;
	h->ret_val = v;
	h->exc_span = n->span;
	return NULL;
}

/* ---- conditions ----------------------------------------------------------------- */

static bool cond_matches(const char *clause, const char *type)
{
	if (!strcmp(clause, "t") || !strcmp(clause, "condition") || !strcmp(clause, type))
		return true;
	return strcmp(type, "interactive-interrupt") &&
	       (!strcmp(clause, "error") || !strcmp(clause, "serious-condition") || !strcmp(clause, "simple-error"));
}

static struct lv *sf_handler_case(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "a form"))
		return NULL;
	struct lv *v = lv_eval(h, n->items[1], env);
	if (v || h->exc != LV_EXC_CONDITION)
		return v;
	for (uint32_t i = 2; i < n->nitems; i++) {
		const struct kl_node *cl = n->items[i];
		if (cl->kind != KL_N_LIST || cl->nitems < 2 || cl->items[0]->kind != KL_N_SYM)
			return lv_err(h, cl, "a handler-case clause is (TYPE (VAR) FORM...)");
		if (!cond_matches(lv_symname(h, cl->items[0]), h->cond->u.cond.type))
			continue;
		struct lv *c = h->cond;
		h->exc = LV_EXC_NONE;
		struct lv_frame *inner = env;
		const struct kl_node *vars = cl->items[1];
		if (vars->kind == KL_N_LIST && vars->nitems) {
			const char *name = lv_var_name(h, vars->items[0], "a handler-case variable");
			if (!name)
				return NULL;
			lv_push_frame(h, &inner, name, c);
		}
		return lv_body_from(h, cl, 2, inner);
	}
	return NULL;
}

static struct lv *sf_ignore_errors(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	struct lv *v = lv_progn(h, ITEMS(n) + 1, n->nitems - 1, env);
	if (!v && h->exc == LV_EXC_CONDITION && cond_matches("error", h->cond->u.cond.type)) {
		h->exc = LV_EXC_NONE;
		return LNIL;
	}
	return v;
}

static struct lv *sf_unwind_protect(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (lv_need(h, n, 2, "a form"))
		return NULL;
	struct lv *v = lv_eval(h, n->items[1], env);
	enum lv_exc exc = h->exc;
	struct lv *cond = h->cond, *rv = h->ret_val;
	const char *rb = h->ret_block;
	struct kl_span sp = h->exc_span;
	h->exc = LV_EXC_NONE;
	TRY(lv_progn(h, ITEMS(n) + 2, n->nitems - 2, env));
	h->exc = exc, h->cond = cond, h->ret_val = rv, h->ret_block = rb, h->exc_span = sp;
	return v;
}

const struct lv_special lv_control_forms[] = {
	{ "block", sf_block }, { "return", sf_return }, { "return-from", sf_return },
	{ "handler-case", sf_handler_case }, { "ignore-errors", sf_ignore_errors },
	{ "unwind-protect", sf_unwind_protect }, { NULL, NULL },
};
