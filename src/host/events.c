/* events.c — clj-ebpf's event definitions on the host (seed 002). An event's definition is a
 * value, as clj-ebpf's is a map: (:name NAME :size BYTES :fields ((:FIELD :TYPE COUNT SIZE
 * OFFSET) ...)), laid out as clj-ebpf and kiln's defevent lay it out (packed, each field after
 * the last). (defevent NAME SPEC...) and (make-event-def 'NAME SPECS) bind NAME to it, so the
 * event-* functions take the event unquoted as clj-ebpf writes them (or quoted: its name);
 * make-event-def also hands kiln the defevent, compiled with the session's programs. */
#include "events.h"
#include "hv.h"
#include "compiler/types.h"
#include <string.h>

#define B(name) static struct lv *name(struct lisp *h, const struct kl_node *c, struct lv **a, int n)

static struct lv *named(struct lisp *h, enum lv_kind k, const char *written)
{
	struct lv *v = kl_arena_new(&h->a, struct lv);
	v->k = k;
	v->u.name = kl_fold_case(&h->a, written);
	v->written = written;
	return v;
}

static struct lv *nth(struct lv *l, int i)
{
	for (; i > 0 && l->k == LV_CONS; i--)
		l = l->u.cons.cdr;
	return l->k == LV_CONS ? l->u.cons.car : LNIL;
}

static struct lv *list_of(struct lisp *h, struct lv **items, int n)
{
	struct lv *l = LNIL;
	for (int i = n - 1; i >= 0; i--)
		l = lv_cons(h, items[i], l);
	return l;
}

/* The definition of NAME with SPECS ([:field :type] or [:field :type count]); NULL with an
 * error at `at` when a spec is malformed or its type is not one the host can size (clj-ebpf's
 * :u8..:i64, :char, :ptr and kiln's other integer names). */
static struct lv *definition(struct lisp *h, const struct kl_node *at, const char *name, struct lv *specs)
{
	struct lv *head = LNIL, **tail = &head;
	uint64_t off = 0;
	for (struct lv *l = specs; l->k == LV_CONS; l = l->u.cons.cdr) {
		struct lv *s = l->u.cons.car, *f = nth(s, 0), *t = nth(s, 1), *cnt = nth(s, 2);
		int64_t len = lv_list_len(h, NULL, s, NULL);
		const struct kl_type *ty = t->k == LV_KEY || t->k == LV_SYM ? kl_type_builtin(t->u.name) : NULL;
		if ((len != 2 && len != 3) || (f->k != LV_KEY && f->k != LV_SYM) || (len == 3 && cnt->k != LV_INT))
			return lv_err(h, lv_origin(s, at), "%s: a field is [:name :type] or [:name :type count]: %s", name,
				      lv_to_text(h, s, true));
		if (!ty || (len == 3 && (cnt->u.i < 1 || cnt->u.i > 65536)))
			return lv_err(h, lv_origin(s, at), "%s: the host knows the size of integer fields only: %s", name,
				      lv_to_text(h, s, true));
		int64_t count = len == 3 ? cnt->u.i : 1;
		struct lv *row[5] = { named(h, LV_KEY, f->written ? f->written : f->u.name), t, lv_int(h, count),
				      lv_int(h, ty->size * count), lv_int(h, (int64_t)off) };
		off += ty->size * (uint64_t)count;
		*tail = lv_cons(h, list_of(h, row, 5), LNIL);
		tail = &(*tail)->u.cons.cdr;
	}
	struct lv *d[6] = { named(h, LV_KEY, "name"), named(h, LV_SYM, name), named(h, LV_KEY, "size"),
			    lv_int(h, (int64_t)off), named(h, LV_KEY, "fields"), head };
	return list_of(h, d, 6);
}

static void bind(struct lisp *h, const char *name, struct lv *def)
{
	lv_global(h, kl_fold_case(&h->a, name), true)->val = def;
}

void host_define_event(struct lisp *h, const struct kl_node *form)
{
	if (form->nitems < 3 || form->items[1]->kind != KL_N_SYM)
		return;
	struct lv *specs = LNIL;
	for (uint32_t i = form->nitems - 1; i >= 2; i--)
		specs = lv_cons(h, lv_from_node(h, form->items[i]), specs);
	const char *name = lv_symname(h, form->items[1]);
	enum lv_exc saved = h->exc;
	struct lv *cond = h->cond, *def = definition(h, form, name, specs);
	if (def)
		bind(h, name, def);
	h->exc = saved;   /* a type the host cannot size: kiln still compiles the event */
	h->cond = cond;
}

/* Is c a call (make-event-def 'NAME '(SPEC ...)) written in the file being run? The compiler
 * takes that at the top level, so it is compiled at its place in the file, before the forms
 * after it that use the event, even from inside an eval-when. */
static bool literal(struct lisp *h, const struct kl_node *c)
{
	for (uint32_t i = 1; i < 3 && c->nitems == 3; i++)
		if (!kl_head(c->items[i]) || strcmp(kl_head(c->items[i]), "quote") || c->items[i]->nitems != 2)
			return false;
	return c->nitems == 3 && c->span.src == &h->src && !H(h)->repl;
}

/* (make-event-def 'NAME '([:field :type] ...)): the definition, NAME bound to it, and the
 * defevent collected for the session's compilation: the call itself when written so, else
 * (computed specs) a defevent after the file's forms */
B(b_make_event_def)
{
	(void)n;
	if (a[0]->k != LV_SYM && a[0]->k != LV_STR)
		return lv_err(h, lv_origin(a[0], c), "make-event-def needs a name: (make-event-def 'NAME '([:field :type] ...))");
	if (lv_list_len(h, NULL, a[1], NULL) < 1)
		return lv_err(h, lv_origin(a[1], c), "make-event-def needs a list of field specs: '([:field :type] ...)");
	const char *name = a[0]->k == LV_STR ? a[0]->u.str.s : a[0]->written ? a[0]->written : a[0]->u.name;
	struct lv *def = definition(h, c, name, a[1]);
	if (!def)
		return NULL;
	if (literal(h, c)) {
		host_collect(h, c);                /* compiled where it is written, before what follows */
	} else {
		bool written = h->print_written;   /* the names as written, as the compiler keeps them */
		h->print_written = true;
		host_collect_value(h, lv_cons(h, named(h, LV_SYM, "defevent"), lv_cons(h, named(h, LV_SYM, name), a[1])));
		h->print_written = written;
	}
	bind(h, name, def);
	return def;
}

/* an event-* function's definition: the value itself, or the global a symbol names */
static struct lv *event_def(struct lisp *h, const struct kl_node *c, struct lv *v, const char *what)
{
	if (v->k == LV_SYM) {
		struct lv_global *g = lv_global(h, v->u.name, false);
		v = g && g->val ? g->val : v;
	}
	if (v->k != LV_CONS || nth(v, 0)->k != LV_KEY || strcmp(nth(v, 0)->u.name, "name"))
		return lv_err(h, lv_origin(v, c), "%s: %s is not an event (defevent or make-event-def)", what,
			      lv_to_text(h, v, true));
	return v;
}

B(b_event)
{
	const char *what = h->self->u.bi.name;
	struct lv *d = event_def(h, c, a[0], what);
	if (!d)
		return NULL;
	if (!strcmp(what, "event-size"))
		return nth(d, 3);
	struct lv *head = LNIL, **tail = &head, *field = NULL;
	for (struct lv *l = nth(d, 5); l->k == LV_CONS; l = l->u.cons.cdr) {
		*tail = lv_cons(h, nth(l->u.cons.car, 0), LNIL);
		tail = &(*tail)->u.cons.cdr;
		if (n > 1 && (a[1]->k == LV_KEY || a[1]->k == LV_SYM) && !strcmp(nth(l->u.cons.car, 0)->u.name, a[1]->u.name))
			field = l->u.cons.car;
	}
	if (!strcmp(what, "event-fields"))
		return head;
	if (!field)
		return lv_err(h, lv_origin(a[1], c), "%s has no field %s", nth(d, 1)->written ? nth(d, 1)->written : nth(d, 1)->u.name,
			      lv_to_text(h, a[1], true));
	return nth(field, !strcmp(what, "event-field-type") ? 1 : !strcmp(what, "event-field-size") ? 3 : 4);
}

static const struct { const char *name; lv_builtin_fn fn; int min, max; } builtins[] = {
	{ "make-event-def", b_make_event_def, 2, 2 }, { "event-fields", b_event, 1, 1 },
	{ "event-field-type", b_event, 2, 2 }, { "event-size", b_event, 1, 1 },
	{ "event-field-offset", b_event, 2, 2 }, { "event-field-size", b_event, 2, 2 },
};

lv_builtin_fn host_event_builtin(const char *name, int *min, int *max)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(name, builtins[i].name)) {
			*min = builtins[i].min;
			*max = builtins[i].max;
			return builtins[i].fn;
		}
	return NULL;
}
