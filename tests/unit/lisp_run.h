/* lisp_run.h — the unit tests' way to run Lisp text on a fresh core (test_lisp.c,
 * test_lisp_num.c): src's forms evaluated with layer (or none), at most max_steps steps (0:
 * the default budget), integers strict (the host's) or wrapping (the macros'); the last value
 * printed readably, "READ: message" when it does not read, "ERROR: message @line:col" for a
 * condition, "EXIT" for a non-local exit. The text is in a static buffer. lisp_compile_text
 * gives the compiler text the same way. */
#ifndef KILN_TEST_LISP_RUN_H
#define KILN_TEST_LISP_RUN_H
#include "compiler/compile.h"
#include "compiler/forms.h"
#include "lisp/lisp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *lisp_run(const char *src, const struct lisp_layer *layer, uint64_t max_steps, bool strict)
{
	static char out[1024];
	struct lisp *L = calloc(1, sizeof(*L));
	L->src = (struct kl_source){ "t.lisp", src, strlen(src) };
	lisp_init(L, layer);
	L->max_steps = max_steps;
	L->strict_ints = strict;
	struct kl_diag d = { 0 };
	struct kl_node **forms;
	uint32_t n;
	if (kl_read(&L->a, &d, &L->src, &forms, &n)) {
		snprintf(out, sizeof(out), "READ: %s", d.msg);
	} else {
		struct lv *v = LNIL;
		for (uint32_t i = 0; i < n && v; i++)
			v = lisp_eval_top(L, forms[i]);
		if (v)
			snprintf(out, sizeof(out), "%s", lv_to_text(L, v, true));
		else if (L->exc == LV_EXC_CONDITION)
			snprintf(out, sizeof(out), "ERROR: %s @%u:%u", L->cond->u.cond.msg, L->exc_span.line,
				 L->exc_span.col);
		else
			snprintf(out, sizeof(out), "EXIT");
	}
	kl_arena_free(&L->a);
	free(L);
	return out;
}
/* text read and collected by the compiler into c (its arena a, diagnostics d): the forms'
 * collection's result, or -1 when it does not read. The source stays valid (a static) for
 * c's diagnostics. */
static int lisp_compile_text(const char *text, struct kl_comp *c, struct kl_diag *d, struct kl_arena *a)
{
	static struct kl_source src;
	src = (struct kl_source){ "m.lisp", text, strlen(text) };
	memset(d, 0, sizeof(*d));
	memset(c, 0, sizeof(*c));
	c->a = a;
	c->d = d;
	c->src = &src;
	struct kl_node **forms;
	uint32_t n;
	if (kl_read(a, d, &src, &forms, &n))
		return -1;
	return kl_forms_collect(c, forms, n);
}
#endif
