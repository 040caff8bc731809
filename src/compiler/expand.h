/* expand.h — defmacro: macros are Lisp functions run at compile time over the program's
 * own forms, on the one Lisp core (src/lisp/lisp.h). */
#ifndef KL_EXPAND_H
#define KL_EXPAND_H
#include "reader.h"

struct kl_comp;

/* Expansions nested in one another (an expansion that contains another macro call, ...). */
#define KL_MAX_EXPANSIONS 1000
/* Expansions in all: a macro that calls itself twice a level deep, 22 levels, had made four
 * million statements and run out of memory (now refused in half a second); no test program
 * needs more than about a thousand. */
#define KL_MAX_EXPANDED 100000

/* Record (defmacro NAME LAMBDA-LIST BODY...). */
int kl_macro_define(struct kl_comp *c, struct kl_node *form);
/* Is `name` a macro? */
bool kl_macro_is(struct kl_comp *c, const char *name);
/* The i-th macro's name, NULL past the last (for "did you mean" hints). */
const char *kl_macro_name(struct kl_comp *c, size_t i);
/* Expand the macro call n once; NULL with an error. Nodes the expansion builds take the
 * call's span, so errors in expanded code point at the call. */
struct kl_node *kl_macro_expand(struct kl_comp *c, struct kl_node *n);

/* How an eval-when gets back to collection: is name a top-level form (or a macro), and
 * collect these forms. */
struct kl_toplevel {
	bool (*is_form)(struct kl_comp *c, const char *name);
	int (*collect)(struct kl_comp *c, struct kl_node **forms, uint32_t n);
};
/* (eval-when (SITUATION...) BODY...) at the top level, as a Whistler file writes it: BODY run
 * on the Lisp core at compile time (the macros' functions, probe-file), each kiln top-level
 * form it holds or evals (a quoted one) collected as it is met. */
int kl_eval_when(struct kl_comp *c, struct kl_node *n, const struct kl_toplevel *top);

#endif
