/* lower_func.c — functions as values: (function NAME), which the reader also gives for #'NAME,
 * is the address of a defun, for the helpers that call back into the program (bpf-loop,
 * for-each-map-elem, user-ringbuf-drain, timer-set-callback, find-vma). It is a ld_imm64 of
 * BPF_PSEUDO_FUNC with a relocation against .text, as clang writes &static_function. The
 * verifier then checks the defun as a callback: its arguments are the helper's, and it must
 * return what the helper allows (0 to go on, 1 to stop, for the loops). */
#include "lower_internal.h"

static int f_function(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 1, 1))
		return -1;
	struct kl_node *name = n->items[1];
	struct kl_fundef *fd = name->kind == KL_N_SYM ? kl_fun_lookup(l->c, name->str) : NULL;
	if (!fd)
		return kl_lw_err_form(l, name, "%s: '%s' is not one", "(function NAME) takes the name of a defun");
	struct kl_ir_ins *i = emit(l, IR_LDFUNC);
	i->imm = fd - l->c->funs.items;
	i->d = vreg(l);
	*out = pval(i->d);
	return 0;
}

const struct kl_lw_form kl_lw_func_forms[] = {
	{ "function", f_function, "d" },
};
const size_t kl_lw_nfunc_forms = sizeof(kl_lw_func_forms) / sizeof(kl_lw_func_forms[0]);
