/* lower_assigned.c — which variables a body assigns: only those bindings need a register of
 * their own that setf can change; the others stay bound to their value as it is. One walk
 * collects every assigned name of a form's body into a table (a walk per binding made wide
 * lets quadratic). The body is expanded already (expand_stage.c): a macro call is looked at
 * through the expansion the stage left on it, never expanded here. */
#include "lower_internal.h"

/* Add to set the variables n assigns (setf/incf/decf of the bare symbol). Nodes nest at most
 * as deep as the reader and the expand stage allow, which bounds the recursion. */
static void assigned(struct kl_comp *c, struct kl_node *n, struct kl_names *set)
{
	if (n->kind != KL_N_LIST)
		return;
	if (n->expansion) {
		assigned(c, n->expansion, set);
		return;
	}
	const char *h = kl_head(n);
	bool set_form = h && (!strcmp(h, "setf") || !strcmp(h, "setq"));
	for (uint32_t i = 1; set_form && i < n->nitems; i += 2)
		if (n->items[i]->kind == KL_N_SYM)
			kl_names_put(c->a, set, n->items[i]->str, 0);
	if (h && (!strcmp(h, "incf") || !strcmp(h, "decf")) && n->nitems > 1 && n->items[1]->kind == KL_N_SYM)
		kl_names_put(c->a, set, n->items[1]->str, 0);
	for (uint32_t i = 0; i < n->nitems; i++)
		assigned(c, n->items[i], set);
}

void kl_lw_assigned(struct lw *l, struct kl_node **forms, uint32_t n, struct kl_names *set)
{
	for (uint32_t i = 0; i < n; i++)
		assigned(l->c, forms[i], set);
}
