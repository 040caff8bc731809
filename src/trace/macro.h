/* macro.h — bpftrace 0.26's macros, `macro NAME(x, $v, @m) { BODY }`, expanded where they
 * are called once the script is parsed (see macro.c). */
#ifndef KT_MACRO_H
#define KT_MACRO_H
#include "trace/ast.h"

struct kt_macro {
	struct kl_span span;
	const char *name;
	struct kt_node **params;    /* KT_IDENT (an expression), KT_VAR ($v), KT_MAP (@m) */
	uint32_t nparams;
	struct kt_node *body;       /* KT_BLOCK */
};

/* Every call of a macro in prog's probes replaced by its body: a statement by the body as
 * a block, a value by the body's one expression. 0, or -1 with the error in d. */
int kt_macro_expand(struct kl_arena *a, struct kl_diag *d, const struct kt_macro *macros, uint32_t n,
		    struct kt_program *prog);
#endif
