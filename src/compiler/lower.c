/* lower.c — the top of lowering: a form to IR by its head. Each special form is a row in
 * a form table of the file that lowers it (lower_control.c, lower_arith.c, lower_builtin.c,
 * lower_place.c, lower_mem.c, lower_map.c, lower_core.c, ...), with its shape, which tells
 * the expand stage (expand_stage.c) which arguments are code. Here: the tables walked in a
 * fixed order, then the operators, the program's accessors, constructors and defuns, kernel
 * accessors and helpers; the "did you mean" hint; symbols and atoms; and the entry points
 * kl_lower_prog and kl_lower_fun. Lowering itself expands no macro: it lowers the expansion
 * the stage left on each call. */
#include "lower_internal.h"
#include "lower.h"
#include "expand.h"
#include "nearest.h"
#include "ksyms.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every form table, in the order a head is looked up (and hints are gathered). */
static const struct { const struct kl_lw_form *forms; const size_t *n; } form_tables[] = {
	{ kl_lw_control_forms, &kl_lw_ncontrol_forms }, { kl_lw_arith_forms, &kl_lw_narith_forms },
	{ kl_lw_place_forms, &kl_lw_nplace_forms }, { kl_lw_mem_forms, &kl_lw_nmem_forms },
	{ kl_lw_map_forms, &kl_lw_nmap_forms }, { kl_lw_builtin_forms, &kl_lw_nbuiltin_forms },
	{ kl_lw_core_forms, &kl_lw_ncore_forms }, { kl_lw_queue_forms, &kl_lw_nqueue_forms },
	{ kl_lw_event_forms, &kl_lw_nevent_forms }, { kl_lw_func_forms, &kl_lw_nfunc_forms },
	{ kl_lw_loop_forms, &kl_lw_nloop_forms }, { kl_lw_args_forms, &kl_lw_nargs_forms },
	{ kl_lw_asm_forms, &kl_lw_nasm_forms }, { kl_lw_ksym_forms, &kl_lw_nksym_forms },
};

/* The rows of every table sorted by name, a name's first row (in table order) kept: made once
 * per process (constant data, as the tables are), searched by bisection. Walking the ~150
 * rows with strcmp for every form lowered and every form the expand stage looks at had been
 * a tenth of a compile. */
static const struct kl_lw_form **form_index;
static size_t form_index_n;
static pthread_once_t form_index_once = PTHREAD_ONCE_INIT;

struct ranked { const struct kl_lw_form *row; size_t order; };   /* order: in the table walk */

static int by_name_then_order(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = strcmp(x->row->name, y->row->name);
	return c ? c : (x->order > y->order) - (x->order < y->order);
}

static void build_form_index(void)
{
	size_t n = 0;
	for (size_t t = 0; t < sizeof(form_tables) / sizeof(form_tables[0]); t++)
		n += *form_tables[t].n;
	struct ranked *r = malloc((n + 1) * sizeof(*r));
	const struct kl_lw_form **rows = malloc((n + 1) * sizeof(*rows));
	if (!r || !rows) {
		free(r);
		free(rows);
		return;   /* find_form walks the tables instead */
	}
	size_t k = 0;
	for (size_t t = 0; t < sizeof(form_tables) / sizeof(form_tables[0]); t++)
		for (size_t i = 0; i < *form_tables[t].n; i++, k++)
			r[k] = (struct ranked){ &form_tables[t].forms[i], k };
	qsort(r, n, sizeof(*r), by_name_then_order);
	/* of the rows of one name, the one a walk of the tables in order meets first */
	size_t out = 0;
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(r[i].row->name, r[i - 1].row->name))
			rows[out++] = r[i].row;
	free(r);
	form_index = rows;
	form_index_n = out;
}

static int name_vs_row(const void *key, const void *row)
{
	return strcmp(key, (*(const struct kl_lw_form *const *)row)->name);
}

static const struct kl_lw_form *find_form(const char *h)
{
	pthread_once(&form_index_once, build_form_index);
	if (form_index) {
		const struct kl_lw_form *const *r = bsearch(h, form_index, form_index_n, sizeof(*form_index), name_vs_row);
		return r ? *r : NULL;
	}
	for (size_t t = 0; t < sizeof(form_tables) / sizeof(form_tables[0]); t++)
		for (size_t i = 0; i < *form_tables[t].n; i++)
			if (!strcmp(form_tables[t].forms[i].name, h))
				return &form_tables[t].forms[i];
	return NULL;
}

int kl_lw_lower_body(struct lw *l, struct kl_node **body, uint32_t n, struct val *out)
{
	*out = cval(0);
	for (uint32_t i = 0; i < n; i++)
		if (kl_lw_lower(l, body[i], out))
			return -1;
	return 0;
}

/* "did you mean ...?" over every name a form can start with: forms, operators, helpers,
 * macros, and the program's own functions, accessors and make-STRUCT constructors. */
static const char *near_hint(struct kl_comp *c, const char *h, char *buf, size_t size)
{
	struct kl_nearest nb;
	kl_nearest_init(&nb, h);
	for (size_t t = 0; t < sizeof(form_tables) / sizeof(form_tables[0]); t++)
		for (size_t i = 0; i < *form_tables[t].n; i++)
			kl_nearest_add(&nb, form_tables[t].forms[i].name);
	kl_lw_arith_names(&nb);
	kl_lw_cmp_names(&nb);
	kl_lw_swap_names(&nb);
	kl_helper_names_near(&nb);
	for (size_t i = 0; kl_macro_name(c, i); i++)
		kl_nearest_add(&nb, kl_macro_name(c, i));
	for (size_t i = 0; i < c->funs.len; i++)
		kl_nearest_add(&nb, c->funs.items[i].name);
	for (size_t i = 0; i < c->accessors.len; i++)
		kl_nearest_add(&nb, c->accessors.items[i].name);
	for (size_t i = 0; i < c->structs.len; i++) {
		char make[96];
		snprintf(make, sizeof(make), "make-%s", c->structs.items[i].name);
		kl_nearest_add(&nb, make);
	}
	return kl_nearest_hint(&nb, buf, size);
}

const char *kl_lower_shape(const char *h)
{
	if (!strcmp(h, "declare"))
		return "d";
	const struct kl_lw_form *f = find_form(h);
	return f ? f->shape : NULL;
}

static int lower_list(struct lw *l, struct kl_node *n, struct val *out)
{
	if (n->nitems == 0)
		return kl_error(l->c->d, n->span, "empty form '()' is not an expression");
	struct kl_node *hd = n->items[0];
	if (hd->kind != KL_N_SYM)
		return kl_lw_err_form(l, n, "%s: a form must start with a symbol: %s", "syntax error");
	const char *h = hd->str;
	if (n->expansion) {   /* a macro call: its expansion, made by the expand stage */
		int errors = l->c->d->nerrors;
		l->c->expansions++;
		if (l->ncalls++ < sizeof(l->calls) / sizeof(l->calls[0]))
			l->calls[l->ncalls - 1] = n->span;
		int r = kl_lw_lower(l, n->expansion, out);
		l->ncalls--;
		l->c->expansions--;
		if (r && !errors && !l->c->expansions)   /* the call written in the body */
			kl_diag_expansion_note(l->c->d, kl_name(n->items[0]), n->span);
		return r;
	}
	if (!strcmp(h, "declare")) {       /* only meaningful at the start of a binding form's body */
		*out = cval(0);
		return 0;
	}
	const struct kl_lw_form *f = find_form(h);
	if (f)
		return f->fn(l, n, out);
	int r = kl_lw_arith_op(l, n, out);   /* lower_arith.c: + - ... and the byte swaps */
	if (r <= 0)
		return r;
	if ((r = kl_lw_cmp_op(l, n, out)) <= 0)   /* lower_control.c: = < s>= ... */
		return r;
	/* A built-in form lowering made itself (with-event's drop counter's incf) is the built-in
	 * even where the user has a macro of that name; any other macro call not expanded is ours. */
	if (kl_macro_is(l->c, h))
		return kl_lw_err_form(l, n, "%sinternal error: the macro call %s was not expanded before lowering "
				      "(the expand stage read it as data)", "");
	const struct kl_accessor *acc = kl_accessor_lookup(l->c, h);
	if (acc)
		return kl_lw_accessor(l, n, acc, out);
	size_t hl = strlen(h);
	if (hl > 4 && !strcmp(h + hl - 4, "-ptr") &&
	    (acc = kl_accessor_lookup(l->c, kl_arena_strndup(l->c->a, h, hl - 4))))
		return kl_lw_field_ptr(l, n, acc, out);
	struct kl_structdef *sd = !strncmp(h, "make-", 5) ? kl_struct_lookup(l->c, h + 5) : NULL;
	if (sd)
		return kl_lw_make_struct(l, n, sd, out);
	struct kl_fundef *fd = kl_fun_lookup(l->c, h);
	if (fd)
		return kl_lw_funcall(l, n, fd, out);
	int kr = kl_lw_kernel_accessor(l, n, out);
	if (kr <= 0)
		return kr;
	const char *hn = !strncmp(h, "bpf-", 4) ? h + 4 : h;
	const struct kl_helper *helper = kl_helper_find(hn);
	if (helper)
		return kl_lw_helper(l, n, helper, out);
	char buf[160], hint[320];
	kl_node_str(n, buf, sizeof(buf));
	return kl_error(l->c->d, hd->span, "unknown function or form '%s' in %s%s%s", kl_name(hd), buf,
			near_hint(l->c, h, hint, sizeof(hint))[0] ? "; " : "", hint);
}

int kl_lw_lower(struct lw *l, struct kl_node *n, struct val *out)
{
	switch (n->kind) {
	case KL_N_INT:
		*out = cval(n->ival);
		return 0;
	case KL_N_SYM: {
		struct binding *b = kl_lw_find_var(l, n->str);
		if (b) {
			b->used = true;
			*out = b->v;
			return 0;
		}
		int64_t v;
		if (!strcmp(n->str, "t")) {
			*out = cval(1);
			return 0;
		}
		if (!strcmp(n->str, "nil")) {
			*out = cval(0);
			return 0;
		}
		if (kl_const_lookup(l->c, n->str, &v)) {
			*out = cval(v);
			return 0;
		}
		int ar = kl_lw_arg_var(l, n, out);
		if (ar <= 0)
			return ar;
		struct kl_globaldef *g = kl_global_lookup(l->c, n->str);
		if (g) {
			*out = kl_lw_global_read(l, g);
			return 0;
		}
		uint32_t ki;
		struct kl_ksymdef *ks = kl_ksym_lookup(l->c, n->str, &ki);
		if (ks) {
			*out = kl_lw_ksym_read(l, ks, ki);
			return 0;
		}
		if (kl_map_lookup(l->c, n->str))
			return kl_error(l->c->d, n->span, "map '%s' used as a value; pass it to getmap, map-lookup "
					"or a helper", kl_name(n));
		return kl_error(l->c->d, n->span, "unknown variable '%s'", kl_name(n));
	}
	case KL_N_KEY:
		return kl_error(l->c->d, n->span, "keyword ':%s' is not an expression here", n->str);
	case KL_N_STR:
		return kl_error(l->c->d, n->span, "string \"%s\" is not an expression here", n->str);
	case KL_N_FLOAT:
		return kl_error(l->c->d, n->span, "the float %s in BPF code: BPF has no floating point (a macro may "
				"compute with floats, but what it gives the code must be an integer)", n->str);
	case KL_N_LIST: {
		struct kl_span saved = l->span;
		l->span = n->span;
		int r = lower_list(l, n, out);
		l->span = saved;
		return r;
	}
	}
	return -1;
}

/* ---- functions ---- */

static struct kl_ir_func *new_func(struct lw *l, struct kl_comp *c, const char *name, struct kl_node *form)
{
	struct kl_ir_func *f = kl_arena_new(c->a, struct kl_ir_func);
	f->name = name;
	f->nvregs = 1;
	f->span = form->span;
	l->c = c;
	l->f = f;
	l->span = form->span;
	return f;
}

static int finish(struct lw *l, struct val v)
{
	ret(l, v);
	return 0;
}

struct kl_ir_func *kl_lower_prog(struct kl_comp *c, struct kl_progdef *p)
{
	struct lw l = { 0 };
	struct kl_ir_func *f = new_func(&l, c, p->name, p->form);
	l.pt = p->pt;
	l.section = p->section;
	l.prog = p;
	struct kl_ir_ins *e = emit(&l, IR_ENTRY);
	e->d = l.ctx = vreg(&l);
	struct binding b = { "ctx", rval(l.ctx), false, NULL, false, NULL };
	kl_vec_push(c->a, &l.scope, b);
	struct val v;
	if (kl_lw_args_start(&l) || kl_lw_lower_body(&l, p->form->items + p->body_start, p->form->nitems - p->body_start, &v) || finish(&l, v))
		return NULL;
	return f;
}

struct kl_ir_func *kl_lower_fun(struct kl_comp *c, struct kl_fundef *fd)
{
	struct lw l = { 0 };
	struct kl_ir_func *f = new_func(&l, c, fd->name, fd->form);
	f->subprog = true;
	struct kl_node **body = fd->form->items + 3;
	uint32_t nbody = fd->form->nitems - 3;
	struct kl_names set = { 0 };
	kl_lw_assigned(&l, body, nbody, &set);
	for (uint32_t i = 0; i < fd->nparams; i++) {
		struct kl_ir_ins *e = emit(&l, IR_ENTRY);
		e->imm = i;
		e->d = vreg(&l);
		const char *name = fd->params->items[i]->str;
		bool mut = kl_names_get(&set, name) >= 0;
		struct binding b = { name, rval(e->d), mut, NULL, false, NULL };
		if (mut)
			b.v.is_var = true;
		kl_vec_push(c->a, &l.scope, b);
	}
	struct val v;
	if (kl_lw_lower_body(&l, body, nbody, &v) || finish(&l, v))
		return NULL;
	return f;
}
