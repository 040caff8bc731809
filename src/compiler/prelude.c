/* prelude.c — the prelude read lazily, form by form, as the program needs its names; see
 * prelude.h. */
#include "prelude.h"
#include "compile.h"
#include "forms.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct kl_prelude_state {
	struct kl_source src;     /* one source for every prelude form: spans compare by it */
	uint8_t *loaded;          /* per form: collected */
	uint32_t loading;         /* forms being collected now (one may need another) */
};

static int need(struct kl_comp *c, const char *name, enum kl_lazy_kind kind);
static void need_all(struct kl_comp *c);
static bool loading(const struct kl_comp *c);
static const struct kl_lazy lazy = { need, need_all, loading };

int kl_prelude_start(struct kl_comp *c)
{
	/* in the compilation's arena, not a static (two threads compiling at once would share
	 * it) nor on this stack (the nodes' spans point at it until the compilation ends) */
	struct kl_prelude_state *p = kl_arena_new(c->a, struct kl_prelude_state);
	p->src = (struct kl_source){ "<prelude>", kl_prelude_text, strlen(kl_prelude_text) };
	c->prelude = p;
	if (kl_prelude_nforms) {
		p->loaded = kl_arena_array(c->a, uint8_t, kl_prelude_nforms);
		c->lazy = &lazy;
		return 0;
	}
	struct kl_node **forms;
	uint32_t nforms;
	return kl_read(c->a, c->d, &p->src, &forms, &nforms) || kl_forms_collect(c, forms, nforms) ? -1 : 0;
}

static int by_name(const void *key, const void *entry)
{
	return strcasecmp(key, ((const struct kl_prelude_name *)entry)->name);
}

static int load(struct kl_comp *c, uint32_t k)
{
	struct kl_prelude_state *p = c->prelude;
	if (p->loaded[k])
		return 0;
	p->loaded[k] = 1;
	const struct kl_prelude_form *f = &kl_prelude_forms[k];
	struct kl_node *form;
	p->loading++;
	int r = kl_read_one(c->a, c->d, &p->src, f->off, f->line, f->col, &form) || kl_forms_collect(c, &form, 1);
	p->loading--;
	return r ? -1 : 1;
}

static int need(struct kl_comp *c, const char *name, enum kl_lazy_kind kind)
{
	if (!c->prelude || !c->prelude->loaded || !name)
		return 0;
	const struct kl_prelude_name *e = kind == KL_LAZY_MACRO
		? bsearch(name, kl_prelude_macros, kl_prelude_nmacros, sizeof(*e), by_name)
		: bsearch(name, kl_prelude_consts, kl_prelude_nconsts, sizeof(*e), by_name);
	return e ? load(c, e->form) : 0;
}

static void need_all(struct kl_comp *c)
{
	for (uint32_t k = 0; c->prelude && c->prelude->loaded && k < kl_prelude_nforms; k++)
		load(c, k);
}

static bool loading(const struct kl_comp *c)
{
	return c->prelude && c->prelude->loading;
}
