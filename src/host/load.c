/* load.c — (load "FILE") in a session file: the file's forms evaluated in the session, as
 * Common Lisp's load does, for host code kept apart (what `kiln gen lisp` writes: records,
 * decoders, encoders). The file is read whole first, so a read error is at FILE:line:col and
 * nothing of it runs; an error while it runs is reported at its place in FILE. Its kiln forms
 * (defmap, defprog...) belong in the session file, which is what the compiler reads: they are
 * an error here. `kiln repl` has a load of its own that takes kiln forms too (repl_load.c). */
#include "hv.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* loads open inside one another at most this deep (a file that loads itself stops there) */
#define MAX_LOAD_DEPTH 16

struct lv *host_load(struct lisp *h, const struct kl_node *c, struct lv **a, int n)
{
	(void)n;
	int *depth = &H(h)->load_depth;
	if (a[0]->k != LV_STR)
		return lv_err(h, c, "load needs a file name (a string)");
	if (*depth >= MAX_LOAD_DEPTH)
		return lv_err(h, c, "load: files load one another more than %d deep", MAX_LOAD_DEPTH);
	size_t len;
	char *text = kl_read_file(a[0]->u.str.s, &len);
	if (!text)
		return lv_err(h, c, "load: cannot read %s: %s", a[0]->u.str.s, kl_read_strerror(errno));
	struct kl_source *src = kl_arena_new(&h->a, struct kl_source);
	*src = (struct kl_source){ kl_arena_strdup(&h->a, a[0]->u.str.s), kl_arena_strndup(&h->a, text, len), len };
	free(text);
	struct kl_diag d = { 0 };
	struct kl_node **forms;
	uint32_t nforms;
	if (kl_read(&h->a, &d, src, &forms, &nforms)) {
		lv_raise(h, NULL, "error", kl_arena_strdup(&h->a, d.msg));
		h->exc_span = d.span;      /* the place in FILE */
		return NULL;
	}
	(*depth)++;
	struct lv *r = LT;
	for (uint32_t i = 0; i < nforms && r; i++) {
		host_prepare(h, forms[i]);
		const char *hd = kl_head(forms[i]);
		if (hd && (host_is_kiln_form(hd) || host_is_kiln_global(forms[i])))
			r = lv_err(h, forms[i], "load: %s is a kiln form; kiln forms go in the session file itself "
				   "(the compiler reads that)", hd);
		else
			r = lv_eval(h, forms[i], NULL) ? LT : NULL;
	}
	(*depth)--;
	return r;
}
