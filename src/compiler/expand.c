/* expand.c — defmacro: macros are Lisp functions run at compile time over the program's own
 * forms, on the one Lisp core (src/lisp/). A call's argument nodes become values that keep
 * their node, so what a macro passes through unchanged comes back as the very node, with its
 * span and spelling; the macro's lambda list is bound by the core's binder and its body run
 * by the core's evaluator; the value that comes back becomes nodes again, each list or atom
 * the macro made taking the call's span. Symbols print as written (L->print_written), so a
 * name a macro makes from the user's ((format nil "~a-count" name)) keeps the user's spelling.
 * The compiler's layer adds what only compile time has: kiln's constants as variables,
 * %integer-type-p, clj-ebpf's make-event-def and event introspection (an event's name its
 * own value), the tracepoint introspection; gensym's count is the compilation's. An error
 * inside is reported at the call, naming the macro and the place in its definition (or in the
 * code it was given) where evaluation stopped. */
#include "expand.h"
#include "names.h"
#include "compile.h"
#include "tracefs.h"
#include "lisp/lisp.h"
#include <setjmp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct macro {
	const char *name;
	struct kl_node *params;
	struct kl_node **body;
	uint32_t nbody;
	struct kl_node *form;
};

/* One expansion (or one top-level eval-when): the core's state (first), the compilation and
 * the call; the way back to collection (an eval-when's forms, make-event-def's defevent), and
 * the first collection error inside it. */
struct mx {
	struct lisp L;
	struct kl_comp *c;
	struct kl_span call;
	const struct kl_toplevel *top;
	struct kl_diag failed;
};

static struct mx *MX(struct lisp *L) { return (struct mx *)(void *)L; }

/* Steps (forms, calls, loop turns) one expansion may take: a macro that loops for ever is an
 * error, not a compiler that hangs. */
#define KL_MACRO_STEPS 10000000
/* The C stack one expansion's evaluation may use (its nesting is an error past it): the
 * compiler may run on a thread's stack, deep in lowering already. */
#define KL_MACRO_STACK ((size_t)1 << 20)

#define B(name) static struct lv *name(struct lisp *h, const struct kl_node *c, struct lv **a, int n)

/* v as text: a string's contents, a symbol's name as written, a number */
static const char *text(struct lisp *h, struct lv *v)
{
	return v->k == LV_STR ? v->u.str.s : lv_to_text(h, v, false);
}

/* a symbol or keyword value named as written */
static struct lv *named(struct lisp *h, enum lv_kind k, const char *written)
{
	struct lv *v = kl_arena_new(&h->a, struct lv);
	v->k = k;
	v->u.name = kl_fold_case(&h->a, written);
	v->written = written;
	return v;
}

static struct lv *list_of(struct lisp *h, struct lv **items, int n)
{
	struct lv *l = LNIL;
	for (int i = n - 1; i >= 0; i--)
		l = lv_cons(h, items[i], l);
	return l;
}

/* A symbol naming one of the integer types (u32, long, __be16...), for macros that load a
 * scalar where they would copy a struct. */
B(b_integer_type_p)
{
	(void)c, (void)n;
	const struct kl_type *t = a[0]->k == LV_SYM || a[0]->k == LV_KEY ? kl_type_builtin(a[0]->u.name) : NULL;
	return lv_bool(t && t->kind == KL_T_INT);
}

/* (%tracepoint-fields EVENT [NAMES]): the fields of tracepoint EVENT (a symbol or string
 * such as sched/sched-switch, dashes for underscores) as a list of (NAME OFFSET SIZE SIGNED
 * COUNT), NAME with dashes; all but the common_* fields, or those NAMES in their order. This
 * is what deftracepoint in the prelude is built on. */
static struct lv *tp_row(struct lisp *h, const struct kl_tp_field *f)
{
	char *name = kl_arena_strdup(&h->a, f->name);
	for (char *p = name; *p; p++)
		if (*p == '_')
			*p = '-';
	struct lv *row[5] = { named(h, LV_SYM, name), lv_int(h, f->offset), lv_int(h, f->size), lv_bool(f->is_signed),
			      lv_int(h, f->count) };
	return list_of(h, row, 5);
}

B(b_tracepoint_fields)
{
	struct kl_arena *ca = MX(h)->c->a;
	/* tracefs names are lower case: a symbol's folded name (SCHED/SCHED-SWITCH), a string as is */
	char *event = kl_arena_strdup(ca, a[0]->k == LV_SYM ? a[0]->u.name : text(h, a[0]));
	for (char *p = event; *p; p++)   /* sched/sched-switch is sched/sched_switch */
		if (*p == '-')
			*p = '_';
	struct kl_tp_field *fs;
	uint32_t nf;
	char path[512];
	if (kl_tracepoint_format(ca, event, &fs, &nf, path, sizeof(path)))
		return lv_err(h, lv_origin(a[0], c), "%s", path);
	struct lv *want = n > 1 ? a[1] : LNIL;
	if (want->k != LV_CONS && want->k != LV_NIL)
		return lv_err(h, lv_origin(want, c), "%%tracepoint-fields needs a list");
	struct lv *head = LNIL, **tail = &head;
	for (uint32_t k = 0; want->k == LV_NIL && k < nf; k++)
		if (strncmp(fs[k].name, "common_", 7)) {
			*tail = lv_cons(h, tp_row(h, &fs[k]), LNIL);
			tail = &(*tail)->u.cons.cdr;
		}
	for (struct lv *l = want; l->k == LV_CONS; l = l->u.cons.cdr) {
		char msg[2048];
		const struct kl_tp_field *f = kl_tracepoint_field(fs, nf, event, text(h, l->u.cons.car),
								  KL_TPF_COMMON | KL_TPF_ANY_CASE, msg, sizeof(msg));
		if (!f)
			return lv_err(h, lv_origin(l->u.cons.car, c), "%s", msg);
		*tail = lv_cons(h, tp_row(h, f), LNIL);
		tail = &(*tail)->u.cons.cdr;
	}
	return head;
}

/* clj-ebpf's event introspection (seed 002), for macros: (event-fields EV) the field names as
 * keywords, (event-field-type EV :f) the field's type as a keyword (an array's element type),
 * (event-size EV), (event-field-offset EV :f), (event-field-size EV :f). EV is the event's
 * name: quoted, or unquoted as clj-ebpf writes it (macro_unbound makes the name its value). */
B(b_event)
{
	const char *what = h->self->u.bi.name;
	struct kl_structdef *sd = a[0]->k == LV_SYM ? kl_struct_lookup(MX(h)->c, a[0]->u.name) : NULL;
	if (!sd)
		return lv_err(h, lv_origin(a[0], c), "%s: '%s' is not a defevent or defstruct", what, text(h, a[0]));
	const struct kl_type *st = sd->type;
	if (!strcmp(what, "event-size"))
		return lv_int(h, st->size);
	if (!strcmp(what, "event-fields")) {
		struct lv *l = LNIL;
		for (uint32_t i = st->nfields; i > 0; i--)
			l = lv_cons(h, named(h, LV_KEY, st->fields[i - 1].name), l);
		return l;
	}
	if (n < 2)
		return lv_err(h, c, "%s needs a field: (%s EVENT :FIELD)", what, what);
	const struct kl_field *f = a[1]->k == LV_KEY || a[1]->k == LV_SYM ? kl_type_field(st, a[1]->u.name) : NULL;
	if (!f)
		return lv_err(h, lv_origin(a[1], c), "%s has no field '%s'", sd->name, text(h, a[1]));
	if (!strcmp(what, "event-field-offset"))
		return lv_int(h, f->offset);
	if (!strcmp(what, "event-field-size"))
		return lv_int(h, f->type->size);
	const struct kl_type *t = f->type->kind == KL_T_ARRAY ? f->type->elem : f->type;
	return named(h, LV_KEY, t->name ? t->name : t->kind == KL_T_PTR ? "ptr" : "struct");
}

static struct lv *collect_now(struct mx *x, struct kl_node *form, const struct kl_node *at);
static struct kl_node *mk(struct mx *x, enum kl_node_kind k);
static struct kl_node *to_node(struct mx *x, struct lv *v, int depth);

/* clj-ebpf's (make-event-def NAME FIELD-SPECS) at compile time: NAME a symbol (or string),
 * FIELD-SPECS a list of [:field :type] or [:field :type count]; the event is collected as
 * (defevent NAME SPEC...) would be, and the value is NAME, which the event-* forms take. A
 * spec written in the program keeps its node, so an error in it points at it. */
B(b_make_event_def)
{
	(void)n;
	struct mx *x = MX(h);
	if (a[0]->k != LV_SYM && a[0]->k != LV_STR)
		return lv_err(h, lv_origin(a[0], c), "make-event-def needs a name: (make-event-def 'NAME '([:field :type] ...))");
	int64_t len = lv_list_len(h, NULL, a[1], NULL);
	if (len < 1 || len > UINT32_MAX - 2)
		return lv_err(h, lv_origin(a[1], c), "make-event-def needs a list of field specs: '([:field :type] ...)");
	if (!x->top)
		return lv_err(h, c, "make-event-def defines an event: call it in eval-when or in a macro, not here");
	struct kl_node *form = mk(x, KL_N_LIST);
	form->items = kl_arena_array(x->c->a, struct kl_node *, (size_t)len + 2);
	form->items[0] = mk(x, KL_N_SYM);
	kl_set_name(x->c->a, form->items[0], "defevent");
	const char *name = a[0]->k == LV_STR ? a[0]->u.str.s : a[0]->written ? a[0]->written : a[0]->u.name;
	struct kl_node *nm = form->items[1] = mk(x, KL_N_SYM);
	kl_set_name(x->c->a, nm, kl_arena_strdup(x->c->a, name));
	nm->span = lv_origin(a[0], c)->span;
	form->nitems = 2;
	for (struct lv *l = a[1]; l->k == LV_CONS; l = l->u.cons.cdr)
		if (!(form->items[form->nitems++] = to_node(x, l->u.cons.car, 0)))
			return NULL;
	struct lv *r = collect_now(x, form, c);
	return r == LNIL ? named(h, LV_SYM, kl_arena_strdup(&h->a, name)) : r;
}

static const struct { const char *name; lv_builtin_fn fn; int min, max; } builtins[] = {
	{ "make-event-def", b_make_event_def, 2, 2 }, { "event-fields", b_event, 1, 1 },
	{ "event-field-type", b_event, 2, 2 }, { "event-size", b_event, 1, 1 },
	{ "event-field-offset", b_event, 2, 2 }, { "event-field-size", b_event, 2, 2 },
	{ "%integer-type-p", b_integer_type_p, 1, 1 }, { "%tracepoint-fields", b_tracepoint_fields, 1, 2 },
};

static lv_builtin_fn macro_builtin(struct lisp *h, const char *name, int *min, int *max, const void **data)
{
	(void)h, (void)data;
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(name, builtins[i].name)) {
			*min = builtins[i].min;
			*max = builtins[i].max;
			return builtins[i].fn;
		}
	return NULL;
}

/* a name bound nowhere: one of the program's constants (defconstant, enum values...) */
static struct lv *macro_unbound(struct lisp *h, const char *name)
{
	int64_t v;
	if (kl_const_lookup(MX(h)->c, name, &v))
		return lv_int(h, v);
	/* a defevent or defstruct names itself, as clj-ebpf's event var holds its definition:
	 * (event-size ConnectionEvent) unquoted */
	const struct kl_structdef *sd = kl_struct_lookup(MX(h)->c, name);
	return sd ? named(h, LV_SYM, sd->name) : NULL;
}

static const struct lisp_layer macro_layer = {
	.builtin = macro_builtin,
	.unbound = macro_unbound,
	.undefined_note = " (not a function available in macro bodies)",
};

/* ---- values back to nodes ---- */

static struct kl_node *mk(struct mx *x, enum kl_node_kind k)
{
	struct kl_node *n = kl_arena_new(x->c->a, struct kl_node);
	n->kind = k;
	n->span = x->call;
	return n;
}

static struct kl_node *to_node(struct mx *x, struct lv *v, int depth);

/* a list's nodes: src itself when nothing in it changed */
static struct kl_node *list_node(struct mx *x, struct lv *v, int depth)
{
	int64_t len = lv_list_len(&x->L, NULL, v, NULL);
	if (len < 0 || len > UINT32_MAX - 1)
		return lv_err(&x->L, lv_origin(v, NULL), "the expansion holds a circular list"), NULL;
	const struct kl_node *src = v->u.cons.src;
	struct kl_node **items = kl_arena_array(x->c->a, struct kl_node *, (size_t)len + 1);
	bool same = src && src->nitems == len;
	uint32_t i = 0;
	struct lv *l = v;
	for (; l->k == LV_CONS; l = l->u.cons.cdr, i++) {
		if (!(items[i] = to_node(x, l->u.cons.car, depth + 1)))
			return NULL;
		same = same && items[i] == src->items[i];
	}
	if (l->k != LV_NIL)
		return lv_err(&x->L, lv_origin(v, NULL), "the expansion holds a dotted list"), NULL;
	if (same)
		return (struct kl_node *)src;
	struct kl_node *n = mk(x, KL_N_LIST);
	n->items = items;
	n->nitems = i;
	n->vector = v->u.cons.vector;
	return n;
}

static struct kl_node *to_node(struct mx *x, struct lv *v, int depth)
{
	if (v->node)
		return (struct kl_node *)v->node;    /* the program's own node, given back */
	if (depth > 10000)
		return lv_err(&x->L, NULL, "the expansion nests more than 10000 deep"), NULL;
	struct kl_node *n;
	switch (v->k) {
	case LV_NIL: return mk(x, KL_N_LIST);
	case LV_T:
		n = mk(x, KL_N_SYM);
		kl_set_name(x->c->a, n, "t");
		return n;
	case LV_INT:
		n = mk(x, KL_N_INT);
		n->ival = v->u.i;
		return n;
	case LV_FLOAT:          /* code refuses it where it is used (lower.c) */
		n = mk(x, KL_N_FLOAT);
		n->fval = v->u.fl.d;
		n->fsingle = v->u.fl.single;
		n->str = kl_arena_strdup(x->c->a, lv_to_text(&x->L, v, true));
		return n;
	case LV_STR:
		n = mk(x, KL_N_STR);
		n->str = kl_arena_strndup(x->c->a, v->u.str.s, v->u.str.len);
		return n;
	case LV_SYM:
	case LV_KEY:
		n = mk(x, v->k == LV_SYM ? KL_N_SYM : KL_N_KEY);
		kl_set_name(x->c->a, n, kl_arena_strdup(x->c->a, v->written ? v->written : v->u.name));
		return n;
	case LV_CONS: return list_node(x, v, depth);
	case LV_MV: return to_node(x, v->u.vec.len ? v->u.vec.items[0] : LNIL, depth);
	default:
		return lv_err(&x->L, NULL, "the expansion holds %s, which is not code", lv_brief(&x->L, v)), NULL;
	}
}

/* ---- macros ---- */

typedef KL_VEC(struct macro) macro_vec;

/* compile.h keeps the table untyped so that struct macro stays private to this file */
static macro_vec *macros_of(struct kl_comp *c)
{
	return (macro_vec *)(void *)&c->macros;
}

int kl_macro_define(struct kl_comp *c, struct kl_node *form)
{
	if (form->nitems < 3 || form->items[1]->kind != KL_N_SYM || form->items[2]->kind != KL_N_LIST) {
		char buf[160];
		kl_node_str(form, buf, sizeof(buf));
		return kl_error(c->d, form->span, "defmacro needs a name, a lambda list and a body: %s", buf);
	}
	struct macro m = { form->items[1]->str, form->items[2], form->items + 3, form->nitems - 3, form };
	if (c->lazy && c->lazy->loading(c) && c->macro_names && kl_names_get(c->macro_names, m.name) >= 0)
		return 0;   /* the program's own, defined before the prelude's was needed */
	kl_vec_push(c->a, macros_of(c), m);
	if (!c->macro_names)
		c->macro_names = kl_arena_new(c->a, struct kl_names);
	kl_names_set(c->a, c->macro_names, m.name, (uint32_t)(macros_of(c)->len - 1));
	return 0;
}

/* The last definition of name: names are folded to lower case, so the table's folding
 * changes nothing. */
static struct macro *find(struct kl_comp *c, const char *name)
{
	int64_t i = c->macro_names ? kl_names_get(c->macro_names, name) : -1;
	if (i < 0 && c->lazy && c->lazy->need(c, name, KL_LAZY_MACRO) > 0)
		i = kl_names_get(c->macro_names, name);
	return i < 0 ? NULL : &macros_of(c)->items[i];
}

bool kl_macro_is(struct kl_comp *c, const char *name) { return name && find(c, name); }
const char *kl_macro_name(struct kl_comp *c, size_t i)
{
	if (!i && c->lazy)
		c->lazy->need_all(c);
	return i < macros_of(c)->len ? macros_of(c)->items[i].name : NULL;
}

/* Code a macro from another file (the prelude) produces is given the call's position, so
 * line info, verifier logs and errors point into the user's file, not at prelude lines under
 * the user's file name. Nodes are copied, not changed: the macro's body is shared by calls. */
static struct kl_node *respan(struct kl_arena *a, struct kl_node *x, const struct kl_span *call, int depth)
{
	if (!x || depth > 200)
		return x;
	bool foreign = x->span.src != call->src;
	struct kl_node **items = x->items;
	for (uint32_t i = 0; x->kind == KL_N_LIST && i < x->nitems; i++) {
		struct kl_node *y = respan(a, x->items[i], call, depth + 1);
		if (y == x->items[i])
			continue;
		if (items == x->items) {
			items = kl_arena_array(a, struct kl_node *, x->nitems);
			memcpy(items, x->items, sizeof(*items) * x->nitems);
		}
		items[i] = y;
	}
	if (!foreign && items == x->items)
		return x;
	struct kl_node *copy = kl_arena_new(a, struct kl_node);
	*copy = *x;
	copy->items = items;
	if (foreign)
		copy->span = *call;
	return copy;
}

/* the core's error reported at the call: the text names the macro and where in its
 * definition (or in the code it was given) evaluation stopped */
static void fail(struct mx *x, const struct macro *m)
{
	struct lisp *L = &x->L;
	char msg[512];
	if (L->exc == LV_EXC_RETURN)
		snprintf(msg, sizeof(msg), "return from %s outside of it", L->ret_block);
	else
		snprintf(msg, sizeof(msg), "%s", L->exc == LV_EXC_CONDITION ? L->cond->u.cond.msg : "failed to expand");
	const struct kl_span *d = &m->form->span, *w = &L->exc_span;
	kl_error(x->c->d, x->call, "in macro '%s' (defined at %s:%u): %s (at %s:%u:%u)", m->name,
		 d->src ? d->src->path : "?", d->line, msg, w->src ? w->src->path : "?", w->line, w->col);
}

/* an expansion's error: a form it could not collect (make-event-def's) reported as itself, at
 * its own place; anything else at the call, naming the macro */
static void failed(struct mx *x, const struct macro *m)
{
	struct lisp *L = &x->L;
	if (x->failed.nerrors && L->exc == LV_EXC_CONDITION && !strcmp(L->cond->u.cond.msg, x->failed.msg))
		*x->c->d = x->failed;
	else
		fail(x, m);
}

/* The call n's arguments as values, m applied to them in the core, the value back as nodes;
 * NULL with x's condition, or with *oom set when either arena ran out of memory */
static struct kl_node *expand_in(struct mx *x, const struct macro *m, struct kl_node *n, bool *oom_hit)
{
	jmp_buf oom, *outer = x->c->a->oom;
	struct kl_node *volatile r = NULL;
	x->L.a.oom = x->c->a->oom = &oom;
	if (!setjmp(oom)) {
		x->L.src = *n->span.src;
		lisp_init(&x->L, &macro_layer);
		x->L.print_written = true;
		x->L.gensyms = x->c->gensyms;
		x->L.max_steps = KL_MACRO_STEPS;
		x->L.stack_top = __builtin_frame_address(0);
		x->L.stack_max = KL_MACRO_STACK;
		int na = (int)n->nitems - 1;
		struct lv **args = kl_arena_array(&x->L.a, struct lv *, na + 1);
		for (int i = 0; i < na; i++)
			args[i] = lv_from_node(&x->L, n->items[i + 1]);
		struct lv *f = lv_lambda(&x->L, NULL, m->params, (const struct kl_node *const *)m->body, m->nbody);
		struct lv *v = lisp_apply_top(&x->L, n, f, args, na);
		r = v ? to_node(x, v, 0) : NULL;
	} else {
		*oom_hit = true;
	}
	x->c->a->oom = outer;
	x->L.a.oom = NULL;
	return r;
}

struct kl_node *kl_macro_expand(struct kl_comp *c, struct kl_node *n)
{
	/* a copy: expanding may collect prelude forms, and the table grow */
	const struct macro mc = *find(c, kl_head(n)), *m = &mc;
	if (c->expansions >= KL_MAX_EXPANSIONS) {
		kl_error(c->d, n->span, "macro '%s' expands without end (more than %d nested expansions)", m->name,
			 KL_MAX_EXPANSIONS);
		return NULL;
	}
	if (++c->expanded > KL_MAX_EXPANDED) {
		kl_error(c->d, n->span, "more than %d macro expansions in all; kiln expands at most that many",
			 KL_MAX_EXPANDED);
		return NULL;
	}
	struct mx *x = calloc(1, sizeof(*x));
	if (!x)
		kl_arena_oom(c->a);
	x->c = c;
	x->call = n->span;
	x->top = c->toplevel;    /* make-event-def's way to collect its event */
	bool oom = false;
	struct kl_node *r = expand_in(x, m, n, &oom);
	c->gensyms = x->L.gensyms;
	if (!r && !oom)
		failed(x, m);
	kl_arena_free(&x->L.a);
	free(x);
	if (oom)
		kl_arena_oom(c->a);      /* the compilation's out of memory, as anywhere else */
	if (r && m->form->span.src != n->span.src)
		r = respan(c->a, r, &n->span, 0);
	return r;
}

/* ---- eval-when at the top level ---- */

/* A kiln top-level form met while an eval-when runs (written in it, or a quoted one given to
 * eval) joins the program: collected at once, so that handler-case around an eval catches a
 * form that cannot be collected. The error is kept (its span is the user's) and the
 * compilation's diagnostics are put back as they were, since the Lisp may handle it. */
static struct lv *collect_now(struct mx *x, struct kl_node *form, const struct kl_node *at)
{
	struct kl_diag saved = *x->c->d;
	if (!x->top->collect(x->c, &form, 1))
		return LNIL;
	struct kl_diag *d = x->c->d;
	if (!x->failed.nerrors)
		x->failed = *d;
	char msg[sizeof(d->msg)];
	snprintf(msg, sizeof(msg), "%s", d->msg);
	*d = saved;
	return lv_raise(&x->L, at, "error", kl_arena_strdup(&x->L.a, msg));
}

static struct lv *sf_collect(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	(void)env;
	return collect_now(MX(h), (struct kl_node *)n, n);
}

static lv_special_fn top_special(struct lisp *h, const char *name)
{
	struct mx *x = MX(h);
	return x->top->is_form(x->c, name) ? sf_collect : NULL;
}

/* (probe-file PATH): PATH when something is there, else nil */
B(b_probe_file)
{
	(void)n;
	struct stat st;
	if (a[0]->k != LV_STR)
		return lv_err(h, c, "probe-file needs a path string");
	return stat(a[0]->u.str.s, &st) ? LNIL : a[0];
}

static lv_builtin_fn top_builtin(struct lisp *h, const char *name, int *min, int *max, const void **data)
{
	if (!strcmp(name, "probe-file")) {
		*min = *max = 1;
		return b_probe_file;
	}
	return macro_builtin(h, name, min, max, data);
}

/* eval of a list the Lisp built: a kiln form joins the program, anything else is refused */
static struct lv *top_eval_built(struct lisp *h, struct lv *form, const struct kl_node *at)
{
	struct mx *x = MX(h);
	struct lv *head = form->u.cons.car;
	if (head->k != LV_SYM || !x->top->is_form(x->c, head->u.name))
		return lv_err(h, at, "eval of a form built at run time is supported only for kiln's top-level forms");
	struct kl_node *node = to_node(x, form, 0);
	return node ? collect_now(x, node, at) : NULL;
}

static const struct lisp_layer top_layer = {
	.special = top_special,
	.builtin = top_builtin,
	.eval_built = top_eval_built,
	.unbound = macro_unbound,
	.undefined_note = " (not a function available in eval-when at compile time)",
};

/* eval-when's situations: true when the body is processed (any of the three), false for (),
 * -1 with the error when they are not a list of those keywords */
static int situations(struct kl_comp *c, const struct kl_node *s)
{
	if (s->kind != KL_N_LIST)
		return kl_error(c->d, s->span, "eval-when needs a list of situations: (eval-when (:compile-toplevel :load-toplevel :execute) ...)");
	static const char *const known[] = { "compile-toplevel", "load-toplevel", "execute" };
	for (uint32_t i = 0; i < s->nitems; i++) {
		bool ok = false;
		for (size_t k = 0; k < 3 && s->items[i]->kind == KL_N_KEY; k++)
			ok = ok || !strcasecmp(s->items[i]->str, known[k]);
		if (!ok)
			return kl_error(c->d, s->items[i]->span, "eval-when's situations are :compile-toplevel, :load-toplevel and :execute");
	}
	return s->nitems > 0;
}

int kl_eval_when(struct kl_comp *c, struct kl_node *n, const struct kl_toplevel *top)
{
	if (n->nitems < 2)
		return kl_error(c->d, n->span, "eval-when needs a list of situations and a body");
	int on = situations(c, n->items[1]);
	if (on <= 0)
		return on;
	struct mx *x = calloc(1, sizeof(*x));
	if (!x)
		kl_arena_oom(c->a);
	x->c = c;
	x->call = n->span;
	x->top = top;
	jmp_buf oom, *outer = c->a->oom;
	volatile int rc = -1;
	volatile bool oom_hit = false;
	x->L.a.oom = c->a->oom = &oom;
	if (!setjmp(oom)) {
		x->L.src = *n->span.src;
		lisp_init(&x->L, &top_layer);
		x->L.print_written = true;
		x->L.gensyms = c->gensyms;
		x->L.max_steps = KL_MACRO_STEPS;
		x->L.stack_top = __builtin_frame_address(0);
		x->L.stack_max = KL_MACRO_STACK;
		rc = 0;
		for (uint32_t i = 2; i < n->nitems && !rc; i++)
			rc = lisp_eval_top(&x->L, n->items[i]) ? 0 : -1;
	} else {
		oom_hit = true;
	}
	c->a->oom = outer;
	x->L.a.oom = NULL;
	c->gensyms = x->L.gensyms;
	if (rc && !oom_hit) {
		struct lisp *L = &x->L;
		const char *msg = L->exc == LV_EXC_CONDITION ? L->cond->u.cond.msg : "return outside of a block";
		if (x->failed.nerrors && L->exc == LV_EXC_CONDITION && !strcmp(msg, x->failed.msg))
			*c->d = x->failed;         /* a form that could not be collected: its own error */
		else
			kl_error(c->d, L->exc_span.src ? L->exc_span : n->span, "in eval-when: %s", msg);
	}
	kl_arena_free(&x->L.a);
	free(x);
	if (oom_hit)
		kl_arena_oom(c->a);
	return rc;
}
