/* expand.c — the compile-time evaluator behind defmacro: backquote, destructuring lambda
 * lists (&optional &rest &body &key), gensym, and the list, symbol, string and arithmetic
 * functions macro bodies use. Values are reader nodes; nil is the empty list. */
#include "expand.h"
#include "names.h"
#include "compile.h"
#include "tracefs.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

struct env {
	const char *name;
	struct kl_node *val;
	struct env *next;
};

struct macro {
	const char *name;
	struct kl_node *params;
	struct kl_node **body;
	uint32_t nbody;
	struct kl_node *form;
};

struct ev {
	struct kl_comp *c;
	struct kl_span call;        /* the macro call being expanded */
	const struct macro *m;      /* the macro */
	int depth;
};

/* closures are lists (%closure PARAMS BODY...) carrying their environment here; the list
 * hangs off the compilation (kl_comp.closures) and lives in its arena, so it ends with it */
struct kl_closure {
	struct kl_node *node;
	struct env *env;
	struct kl_closure *next;
};

static struct kl_node *ev(struct ev *e, struct kl_node *x, struct env *env);

static struct kl_node *mk(struct ev *e, enum kl_node_kind k)
{
	struct kl_node *n = kl_arena_new(e->c->a, struct kl_node);
	n->kind = k;
	n->span = e->call;
	return n;
}

static struct kl_node *nil(struct ev *e) { return mk(e, KL_N_LIST); }

static struct kl_node *sym(struct ev *e, const char *name)
{
	struct kl_node *n = mk(e, KL_N_SYM);
	kl_set_name(e->c->a, n, name);
	return n;
}

static struct kl_node *num(struct ev *e, int64_t v)
{
	struct kl_node *n = mk(e, KL_N_INT);
	n->ival = v;
	return n;
}

static struct kl_node *truth(struct ev *e, bool b) { return b ? sym(e, "t") : nil(e); }

static bool is_nil(const struct kl_node *n)
{
	return (n->kind == KL_N_LIST && n->nitems == 0) || kl_is_sym(n, "nil");
}

static struct kl_node *list_of(struct ev *e, struct kl_node **items, uint32_t n)
{
	struct kl_node *l = nil(e);
	l->items = kl_arena_array(e->c->a, struct kl_node *, n + 1);
	if (n)
		memcpy(l->items, items, sizeof(*items) * n);
	l->nitems = n;
	return l;
}

static struct kl_node *fail(struct ev *e, const struct kl_node *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static struct kl_node *fail(struct ev *e, const struct kl_node *at, const char *fmt, ...)
{
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the call site carries the error; the text names the macro and where in its
	 * definition (or in the code it was given) evaluation stopped */
	const struct kl_span *d = e->m ? &e->m->form->span : NULL;
	const struct kl_span *w = at ? &at->span : d;
	kl_error(e->c->d, e->call, "in macro '%s' (defined at %s:%u): %s (at %s:%u:%u)", e->m ? e->m->name : "?",
		 d && d->src ? d->src->path : "?", d ? d->line : 0, msg, w && w->src ? w->src->path : "?",
		 w ? w->line : 0, w ? w->col : 0);
	return NULL;
}

static struct kl_node *as_list(struct ev *e, struct kl_node *v, const char *fn)
{
	if (kl_is_sym(v, "nil"))
		return nil(e);
	if (v->kind != KL_N_LIST)
		return fail(e, v, "%s needs a list", fn);
	return v;
}

static bool equal(const struct kl_node *a, const struct kl_node *b)
{
	if (is_nil(a) && is_nil(b))
		return true;
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case KL_N_INT: return a->ival == b->ival;
	case KL_N_SYM: case KL_N_KEY: case KL_N_STR: return !strcmp(a->str, b->str);
	case KL_N_LIST:
		if (a->nitems != b->nitems)
			return false;
		for (uint32_t i = 0; i < a->nitems; i++)
			if (!equal(a->items[i], b->items[i]))
				return false;
		return true;
	}
	return false;
}

static const char *text_of(struct ev *e, struct kl_node *v)
{
	char buf[256];
	/* a symbol's text is its name as written, so that a name a macro makes from the user's
	 * (format nil "~a-count" name) keeps the user's spelling in the object */
	if (v->kind == KL_N_STR)
		return v->str;
	if (v->kind == KL_N_SYM)
		return kl_name(v);
	if (v->kind == KL_N_KEY)
		return kl_arena_printf(e->c->a, ":%s", kl_name(v));
	kl_node_str(v, buf, sizeof(buf));
	return kl_arena_strdup(e->c->a, buf);
}

/* ---- lambda lists ---- */

static struct env *bind(struct ev *e, struct env *env, const char *name, struct kl_node *v)
{
	struct env *b = kl_arena_new(e->c->a, struct env);
	b->name = name;
	b->val = v;
	b->next = env;
	return b;
}

/* Bind params against the argument list args; NULL env with an error on mismatch. */
static int destructure(struct ev *e, struct kl_node *params, struct kl_node *args, struct env **env)
{
	enum { REQ, OPT, REST, KEY } mode = REQ;
	uint32_t ai = 0;
	bool had_rest = false;
	for (uint32_t i = 0; i < params->nitems; i++) {
		struct kl_node *p = params->items[i];
		if (kl_is_sym(p, "&optional")) { mode = OPT; continue; }
		if (kl_is_sym(p, "&rest") || kl_is_sym(p, "&body")) { mode = REST; continue; }
		if (kl_is_sym(p, "&key")) { mode = KEY; continue; }
		if (p->kind != KL_N_SYM && !(p->kind == KL_N_LIST && (mode == REQ || (mode != REST && p->nitems &&
									      p->items[0]->kind == KL_N_SYM))))
			return fail(e, p, "a parameter must be a symbol, a list to destructure, or (NAME DEFAULT) "
				    "after &optional or &key"), -1;
		if (mode == REQ) {
			if (ai >= args->nitems)
				return fail(e, p, "too few arguments (missing %s)", p->kind == KL_N_SYM ? p->str : "a list"),
				       -1;
			if (p->kind == KL_N_LIST) {
				struct kl_node *sub = args->items[ai++];
				if (sub->kind != KL_N_LIST)
					return fail(e, sub, "expected a list to destructure"), -1;
				if (destructure(e, p, sub, env))
					return -1;
			} else {
				*env = bind(e, *env, p->str, args->items[ai++]);
			}
		} else if (mode == OPT) {
			const char *name = p->kind == KL_N_LIST ? p->items[0]->str : p->str;
			struct kl_node *v = NULL;
			if (ai < args->nitems)
				v = args->items[ai++];
			else if (p->kind == KL_N_LIST && p->nitems > 1 && !(v = ev(e, p->items[1], *env)))
				return -1;
			else if (!(p->kind == KL_N_LIST && p->nitems > 1))
				v = nil(e);
			*env = bind(e, *env, name, v);
		} else if (mode == REST) {
			*env = bind(e, *env, p->str, list_of(e, args->items + ai, args->nitems - ai));
			had_rest = true;
			mode = REQ;  /* only &key may follow; it reads the same tail */
		} else {
			const char *name = p->kind == KL_N_LIST ? p->items[0]->str : p->str;
			struct kl_node *v = NULL;
			for (uint32_t k = ai; k + 1 < args->nitems; k += 2)
				if (args->items[k]->kind == KL_N_KEY && !strcmp(args->items[k]->str, name))
					v = args->items[k + 1];
			if (!v && p->kind == KL_N_LIST && p->nitems > 1 && !(v = ev(e, p->items[1], *env)))
				return -1;
			*env = bind(e, *env, name, v ? v : nil(e));
		}
	}
	if (mode == KEY || had_rest)
		return 0;
	if (ai < args->nitems)
		return fail(e, args->items[ai], "too many arguments"), -1;
	return 0;
}

/* ---- built-in functions ---- */

typedef struct kl_node *(*builtin_fn)(struct ev *, struct kl_node **, uint32_t, struct kl_node *call);

static struct kl_node *apply(struct ev *e, struct kl_node *fn, struct kl_node **args, uint32_t n, struct kl_node *at);

static int64_t int_arg(struct ev *e, struct kl_node *v, bool *ok)
{
	if (v->kind != KL_N_INT) {
		fail(e, v, "expected an integer");
		*ok = false;
		return 0;
	}
	return v->ival;
}

static struct kl_node *b_arith(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	const char *op = call->items[0]->str;
	uint8_t alu = !strcmp(op, "+") ? BPF_ADD : !strcmp(op, "-") ? BPF_SUB : !strcmp(op, "*") ? BPF_MUL
		    : !strcmp(op, "/") ? BPF_DIV : BPF_MOD;
	bool ok = true;
	if (!n)
		return num(e, alu == BPF_MUL);
	int64_t acc = int_arg(e, a[0], &ok);
	if (n == 1 && alu == BPF_SUB)
		acc = -acc;
	for (uint32_t i = 1; i < n && ok; i++)
		acc = kl_fold(alu, acc, int_arg(e, a[i], &ok));
	return ok ? num(e, acc) : NULL;
}

static struct kl_node *b_cmp(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	const char *op = call->items[0]->str;
	bool ok = true, r = true;
	for (uint32_t i = 0; i + 1 < n && ok; i++) {
		int64_t x = int_arg(e, a[i], &ok), y = ok ? int_arg(e, a[i + 1], &ok) : 0;
		r &= !strcmp(op, "=") ? x == y : !strcmp(op, "/=") ? x != y : !strcmp(op, "<") ? x < y
		   : !strcmp(op, ">") ? x > y : !strcmp(op, "<=") ? x <= y : x >= y;
	}
	return ok ? truth(e, r) : NULL;
}

static struct kl_node *b_list(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	return list_of(e, a, n);
}

static struct kl_node *b_cons(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	struct kl_node *tail = as_list(e, a[n - 1], "cons");
	if (!tail)
		return NULL;
	struct kl_node *items[n - 1 + tail->nitems + 1];
	memcpy(items, a, sizeof(*a) * (n - 1));
	memcpy(items + n - 1, tail->items, sizeof(*a) * tail->nitems);
	return list_of(e, items, n - 1 + tail->nitems);
}

static struct kl_node *b_nth_of(struct ev *e, struct kl_node *l, uint32_t k, const char *fn)
{
	if (!(l = as_list(e, l, fn)))
		return NULL;
	return k < l->nitems ? l->items[k] : nil(e);
}

static struct kl_node *b_car(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	const char *fn = call->items[0]->str;
	uint32_t k = !strcmp(fn, "second") ? 1 : !strcmp(fn, "third") ? 2 : !strcmp(fn, "fourth") ? 3 : 0;
	return b_nth_of(e, a[0], k, fn);
}

static struct kl_node *b_nth(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	bool ok = true;
	int64_t k = int_arg(e, a[0], &ok);
	return ok ? b_nth_of(e, a[1], (uint32_t)k, "nth") : NULL;
}

static struct kl_node *b_cdr(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	struct kl_node *l = as_list(e, a[0], "cdr");
	if (!l)
		return NULL;
	return l->nitems ? list_of(e, l->items + 1, l->nitems - 1) : nil(e);
}

static struct kl_node *b_last(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	struct kl_node *l = as_list(e, a[0], "last");
	if (!l)
		return NULL;
	return l->nitems ? list_of(e, l->items + l->nitems - 1, 1) : nil(e);
}

static struct kl_node *b_append(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	KL_VEC(struct kl_node *) v = { 0 };
	for (uint32_t i = 0; i < n; i++) {
		struct kl_node *l = as_list(e, a[i], "append");
		if (!l)
			return NULL;
		for (uint32_t k = 0; k < l->nitems; k++)
			kl_vec_push(e->c->a, &v, l->items[k]);
	}
	return list_of(e, v.items, (uint32_t)v.len);
}

static struct kl_node *b_reverse(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	struct kl_node *l = as_list(e, a[0], "reverse");
	if (!l)
		return NULL;
	struct kl_node *r = list_of(e, l->items, l->nitems);
	for (uint32_t i = 0; i < r->nitems / 2; i++) {
		struct kl_node *t = r->items[i];
		r->items[i] = r->items[r->nitems - 1 - i];
		r->items[r->nitems - 1 - i] = t;
	}
	return r;
}

static struct kl_node *b_length(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	if (a[0]->kind == KL_N_STR)
		return num(e, (int64_t)strlen(a[0]->str));
	struct kl_node *l = as_list(e, a[0], "length");
	return l ? num(e, l->nitems) : NULL;
}

static struct kl_node *b_mapcar(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	struct kl_node *l = as_list(e, a[1], "mapcar");
	if (!l)
		return NULL;
	struct kl_node *r = list_of(e, l->items, l->nitems);
	for (uint32_t i = 0; i < l->nitems; i++)
		if (!(r->items[i] = apply(e, a[0], &l->items[i], 1, call)))
			return NULL;
	return r;
}

static struct kl_node *b_funcall(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	return apply(e, a[0], a + 1, n - 1, call);
}

static struct kl_node *b_apply(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	struct kl_node *l = as_list(e, a[n - 1], "apply");
	if (!l)
		return NULL;
	struct kl_node *args[n + l->nitems];
	memcpy(args, a + 1, sizeof(*a) * (n - 2));
	memcpy(args + n - 2, l->items, sizeof(*a) * l->nitems);
	return apply(e, a[0], args, n - 2 + l->nitems, call);
}

/* A symbol naming one of the integer types (u32, long, __be16...), for macros that load a
 * scalar where they would copy a struct. */
static bool integer_type(const struct kl_node *v)
{
	const struct kl_type *t = v->kind == KL_N_SYM || v->kind == KL_N_KEY ? kl_type_builtin(v->str) : NULL;
	return t && t->kind == KL_T_INT;
}

static struct kl_node *b_pred(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	const char *fn = call->items[0]->str;
	const struct kl_node *v = a[0];
	bool r = !strcmp(fn, "null") || !strcmp(fn, "not") ? is_nil(v)
	       : !strcmp(fn, "listp") ? v->kind == KL_N_LIST || is_nil(v)
	       : !strcmp(fn, "consp") ? v->kind == KL_N_LIST && v->nitems > 0
	       : !strcmp(fn, "atom") ? !(v->kind == KL_N_LIST && v->nitems > 0)
	       : !strcmp(fn, "symbolp") ? v->kind == KL_N_SYM || is_nil(v)
	       : !strcmp(fn, "keywordp") ? v->kind == KL_N_KEY
	       : !strcmp(fn, "stringp") ? v->kind == KL_N_STR
	       : !strcmp(fn, "%integer-type-p") ? integer_type(v)
	       : v->kind == KL_N_INT;  /* numberp, integerp */
	return truth(e, r);
}

static struct kl_node *b_equal(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	return truth(e, equal(a[0], a[1]));
}

static struct kl_node *b_gensym(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	const char *prefix = n && a[0]->kind == KL_N_STR ? a[0]->str : "G";
	return sym(e, kl_arena_printf(e->c->a, "%%%s%u", prefix, ++e->c->gensyms));
}

static struct kl_node *b_intern(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	const char *s = text_of(e, a[0]);
	if (s[0] == ':') {
		struct kl_node *k = mk(e, KL_N_KEY);
		kl_set_name(e->c->a, k, s + 1);
		return k;
	}
	return sym(e, s);
}

static struct kl_node *b_string(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	struct kl_node *s = mk(e, KL_N_STR);
	s->str = a[0]->kind == KL_N_KEY ? kl_name(a[0]) : text_of(e, a[0]);
	return s;
}

static struct kl_node *b_concatenate(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	/* (concatenate 'string a b ...) */
	KL_VEC(char) buf = { 0 };
	for (uint32_t i = 1; i < n; i++)
		for (const char *p = text_of(e, a[i]); *p; p++)
			kl_vec_push(e->c->a, &buf, *p);
	kl_vec_push(e->c->a, &buf, '\0');
	struct kl_node *s = mk(e, KL_N_STR);
	s->str = buf.items;
	return s;
}

static struct kl_node *b_format(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	/* (format nil "~a ~d ~s~%" args...) */
	if (n < 2 || a[1]->kind != KL_N_STR)
		return fail(e, call, "format needs a destination and a control string");
	KL_VEC(char) buf = { 0 };
	uint32_t ai = 2;
	for (const char *p = a[1]->str; *p; p++) {
		if (*p == '~' && p[1]) {
			p++;
			char d = (char)(*p | 0x20);
			if (d == '%') {
				kl_vec_push(e->c->a, &buf, '\n');
				continue;
			}
			if (d == 'a' || d == 'd' || d == 's') {
				if (ai >= n)
					return fail(e, call, "format has more directives than arguments");
				struct kl_node *v = a[ai++];
				const char *t = v->kind == KL_N_INT ? kl_arena_printf(e->c->a, "%lld", (long long)v->ival)
										   : text_of(e, v);
				for (; *t; t++)
					kl_vec_push(e->c->a, &buf, *t);
				continue;
			}
		}
		kl_vec_push(e->c->a, &buf, *p);
	}
	kl_vec_push(e->c->a, &buf, '\0');
	struct kl_node *s = mk(e, KL_N_STR);
	s->str = buf.items;
	return s;
}

static struct kl_node *b_error(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	struct kl_node *m = n > 1 ? b_format(e, (struct kl_node *[]){ nil(e), a[0] }, 2, call) : NULL;
	return fail(e, call, "%s", m ? m->str : n ? text_of(e, a[0]) : "error");
}

static struct kl_node *b_member(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	struct kl_node *l = as_list(e, a[1], "member");
	if (!l)
		return NULL;
	for (uint32_t i = 0; i < l->nitems; i++)
		if (equal(a[0], l->items[i]))
			return list_of(e, l->items + i, l->nitems - i);
	return nil(e);
}

static struct kl_node *b_case(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	bool up = !strcmp(call->items[0]->str, "string-upcase");
	char *t = kl_arena_strdup(e->c->a, text_of(e, a[0]));
	for (char *p = t; *p; p++)
		*p = (char)(up ? toupper((unsigned char)*p) : tolower((unsigned char)*p));
	struct kl_node *s = mk(e, KL_N_STR);
	s->str = t;
	return s;
}

/* (%tracepoint-fields EVENT [NAMES]): the fields of tracepoint EVENT (a symbol or string
 * such as sched/sched-switch, dashes for underscores) as a list of (NAME OFFSET SIZE SIGNED
 * COUNT), NAME with dashes; all but the common_* fields, or those NAMES in their order. This
 * is what deftracepoint in the prelude is built on. */
static struct kl_node *b_tracepoint_fields(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	/* tracefs names are lower case: a symbol's folded name (SCHED/SCHED-SWITCH), a string as is */
	char *event = kl_arena_strdup(e->c->a, a[0]->kind == KL_N_SYM ? a[0]->str : text_of(e, a[0]));
	for (char *p = event; *p; p++)   /* sched/sched-switch is sched/sched_switch */
		if (*p == '-')
			*p = '_';
	struct kl_tp_field *fs;
	uint32_t nf;
	char path[512];
	if (kl_tracepoint_format(e->c->a, event, &fs, &nf, path, sizeof(path)))
		return fail(e, a[0], "%s", path);
	struct kl_node *want = n > 1 ? as_list(e, a[1], "%tracepoint-fields") : NULL;
	if (n > 1 && !want)
		return NULL;
	KL_VEC(struct kl_node *) out = { 0 };
	uint32_t nw = want && want->nitems ? want->nitems : nf;
	for (uint32_t k = 0; k < nw; k++) {
		const struct kl_tp_field *f = NULL;
		if (want && want->nitems) {
			char msg[2048];
			f = kl_tracepoint_field(fs, nf, event, text_of(e, want->items[k]), KL_TPF_COMMON | KL_TPF_ANY_CASE, msg,
						sizeof(msg));
			if (!f)
				return fail(e, want->items[k], "%s", msg);
		} else {
			f = &fs[k];
			if (!strncmp(f->name, "common_", 7))
				continue;
		}
		char *name = kl_arena_strdup(e->c->a, f->name);
		for (char *p = name; *p; p++)
			if (*p == '_')
				*p = '-';
		struct kl_node *row[5] = { sym(e, name), num(e, f->offset), num(e, f->size), truth(e, f->is_signed),
					   num(e, f->count) };
		kl_vec_push(e->c->a, &out, list_of(e, row, 5));
	}
	return list_of(e, out.items, (uint32_t)out.len);
}

/* clj-ebpf's event introspection (seed 002), for macros: (event-fields EV) the field names as
 * keywords, (event-field-type EV :f) the field's type as a keyword (an array's element type),
 * (event-size EV), (event-field-offset EV :f), (event-field-size EV :f). */
static struct kl_node *b_event(struct ev *e, struct kl_node **a, uint32_t n, struct kl_node *call)
{
	const char *what = call->items[0]->str;
	struct kl_structdef *sd = a[0]->kind == KL_N_SYM ? kl_struct_lookup(e->c, a[0]->str) : NULL;
	if (!sd)
		return fail(e, a[0], "%s: '%s' is not a defevent or defstruct", what, text_of(e, a[0]));
	const struct kl_type *st = sd->type;
	if (!strcmp(what, "event-size"))
		return num(e, st->size);
	if (!strcmp(what, "event-fields")) {
		struct kl_node **items = kl_arena_array(e->c->a, struct kl_node *, st->nfields + 1);
		for (uint32_t i = 0; i < st->nfields; i++) {
			items[i] = mk(e, KL_N_KEY);
			kl_set_name(e->c->a, items[i], st->fields[i].name);
		}
		return list_of(e, items, st->nfields);
	}
	if (n < 2)
		return fail(e, call, "%s needs a field: (%s EVENT :FIELD)", what, what);
	const struct kl_field *f = a[1]->kind == KL_N_KEY || a[1]->kind == KL_N_SYM ? kl_type_field(st, a[1]->str) : NULL;
	if (!f)
		return fail(e, a[1], "%s has no field '%s'", sd->name, text_of(e, a[1]));
	if (!strcmp(what, "event-field-offset"))
		return num(e, f->offset);
	if (!strcmp(what, "event-field-size"))
		return num(e, f->type->size);
	const struct kl_type *t = f->type->kind == KL_T_ARRAY ? f->type->elem : f->type;
	struct kl_node *k = mk(e, KL_N_KEY);
	kl_set_name(e->c->a, k, t->name ? t->name : t->kind == KL_T_PTR ? "ptr" : "struct");
	return k;
}

static const struct {
	const char *name;
	builtin_fn fn;
	uint32_t min, max;
} builtins[] = {
	{ "event-fields", b_event, 1, 1 }, { "event-field-type", b_event, 2, 2 }, { "event-size", b_event, 1, 1 },
	{ "event-field-offset", b_event, 2, 2 }, { "event-field-size", b_event, 2, 2 },
	{ "+", b_arith, 0, 64 }, { "-", b_arith, 1, 64 }, { "*", b_arith, 0, 64 }, { "/", b_arith, 2, 2 },
	{ "mod", b_arith, 2, 2 }, { "=", b_cmp, 1, 64 }, { "/=", b_cmp, 2, 2 }, { "<", b_cmp, 1, 64 },
	{ ">", b_cmp, 1, 64 }, { "<=", b_cmp, 1, 64 }, { ">=", b_cmp, 1, 64 },
	{ "list", b_list, 0, 256 }, { "cons", b_cons, 2, 2 }, { "list*", b_cons, 1, 256 },
	{ "car", b_car, 1, 1 }, { "first", b_car, 1, 1 }, { "second", b_car, 1, 1 },
	{ "third", b_car, 1, 1 }, { "fourth", b_car, 1, 1 }, { "nth", b_nth, 2, 2 },
	{ "cdr", b_cdr, 1, 1 }, { "rest", b_cdr, 1, 1 }, { "last", b_last, 1, 1 },
	{ "append", b_append, 0, 64 }, { "reverse", b_reverse, 1, 1 }, { "length", b_length, 1, 1 },
	{ "mapcar", b_mapcar, 2, 2 }, { "funcall", b_funcall, 1, 6 }, { "apply", b_apply, 2, 6 },
	{ "null", b_pred, 1, 1 }, { "not", b_pred, 1, 1 }, { "listp", b_pred, 1, 1 },
	{ "consp", b_pred, 1, 1 }, { "atom", b_pred, 1, 1 }, { "symbolp", b_pred, 1, 1 },
	{ "keywordp", b_pred, 1, 1 }, { "stringp", b_pred, 1, 1 }, { "numberp", b_pred, 1, 1 },
	{ "integerp", b_pred, 1, 1 }, { "%integer-type-p", b_pred, 1, 1 }, { "eq", b_equal, 2, 2 }, { "eql", b_equal, 2, 2 },
	{ "equal", b_equal, 2, 2 }, { "gensym", b_gensym, 0, 1 }, { "intern", b_intern, 1, 2 },
	{ "symbol-name", b_string, 1, 1 }, { "string", b_string, 1, 1 },
	{ "concatenate", b_concatenate, 1, 64 }, { "format", b_format, 2, 64 }, { "error", b_error, 0, 64 },
	{ "member", b_member, 2, 2 }, { "string-upcase", b_case, 1, 1 }, { "string-downcase", b_case, 1, 1 },
	{ "%tracepoint-fields", b_tracepoint_fields, 1, 2 },
};

/* ---- evaluation ---- */

static struct kl_node *make_closure(struct ev *e, struct kl_node *lambda, struct env *env)
{
	struct kl_closure *ce = kl_arena_new(e->c->a, struct kl_closure);
	ce->node = lambda;
	ce->env = env;
	ce->next = e->c->closures;
	e->c->closures = ce;
	return lambda;
}

static struct kl_node *run_body(struct ev *e, struct kl_node **body, uint32_t n, struct env *env)
{
	struct kl_node *v = nil(e);
	for (uint32_t i = 0; i < n; i++)
		if (!(v = ev(e, body[i], env)))
			return NULL;
	return v;
}

static struct kl_node *apply(struct ev *e, struct kl_node *fn, struct kl_node **args, uint32_t n, struct kl_node *at)
{
	if (fn->kind == KL_N_SYM) {
		for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
			if (!strcmp(builtins[i].name, fn->str)) {
				struct kl_node *l = list_of(e, (struct kl_node *[]){ fn }, 1);
				return builtins[i].fn(e, args, n, l);
			}
		return fail(e, at, "'%s' is not a function known at compile time", fn->str);
	}
	for (struct kl_closure *ce = e->c->closures; ce; ce = ce->next)
		if (ce->node == fn) {
			struct env *env = ce->env;
			struct kl_node *argl = list_of(e, args, n);
			if (destructure(e, fn->items[1], argl, &env))
				return NULL;
			return run_body(e, fn->items + 2, fn->nitems - 2, env);
		}
	return fail(e, at, "not a function");
}

static struct kl_node *qq(struct ev *e, struct kl_node *x, struct env *env)
{
	if (x->kind != KL_N_LIST || !x->nitems)
		return x;
	const char *h = kl_head(x);
	if (h && !strcmp(h, "unquote") && x->nitems == 2)
		return ev(e, x->items[1], env);
	KL_VEC(struct kl_node *) out = { 0 };
	for (uint32_t i = 0; i < x->nitems; i++) {
		struct kl_node *it = x->items[i];
		const char *ih = kl_head(it);
		if (ih && !strcmp(ih, "unquote-splicing") && it->nitems == 2) {
			struct kl_node *v = ev(e, it->items[1], env);
			if (!v || !(v = as_list(e, v, ",@")))
				return NULL;
			for (uint32_t k = 0; k < v->nitems; k++)
				kl_vec_push(e->c->a, &out, v->items[k]);
			continue;
		}
		struct kl_node *v = qq(e, it, env);
		if (!v)
			return NULL;
		kl_vec_push(e->c->a, &out, v);
	}
	struct kl_node *l = list_of(e, out.items, (uint32_t)out.len);
	l->vector = x->vector;
	return l;
}

static struct kl_node *ev_let(struct ev *e, struct kl_node *x, struct env *env, bool seq)
{
	if (x->nitems < 2 || x->items[1]->kind != KL_N_LIST)
		return fail(e, x, "let needs a binding list");
	struct env *nenv = env;
	for (uint32_t i = 0; i < x->items[1]->nitems; i++) {
		struct kl_node *b = x->items[1]->items[i];
		struct kl_node *name = b->kind == KL_N_LIST ? b->items[0] : b;
		struct kl_node *v = nil(e);
		if (b->kind == KL_N_LIST && b->nitems > 1 && !(v = ev(e, b->items[1], seq ? nenv : env)))
			return NULL;
		if (name->kind != KL_N_SYM)
			return fail(e, b, "let binding needs a symbol");
		nenv = bind(e, nenv, name->str, v);
	}
	return run_body(e, x->items + 2, x->nitems - 2, nenv);
}

static struct kl_node *ev(struct ev *e, struct kl_node *x, struct env *env)
{
	if (++e->depth > 2000) {
		e->depth--;
		return fail(e, x, "evaluation nests too deeply");
	}
	struct kl_node *r = NULL;
	switch (x->kind) {
	case KL_N_INT: case KL_N_STR: case KL_N_KEY:
		r = x;
		break;
	case KL_N_SYM: {
		if (!strcmp(x->str, "t") || !strcmp(x->str, "nil")) {
			r = !strcmp(x->str, "t") ? x : nil(e);
			break;
		}
		for (struct env *b = env; b; b = b->next)
			if (!strcmp(b->name, x->str)) {
				r = b->val;
				break;
			}
		int64_t cv;
		if (!r && kl_const_lookup(e->c, x->str, &cv))
			r = num(e, cv);
		if (!r)
			fail(e, x, "'%s' has no value at compile time", x->str);
		break;
	}
	case KL_N_LIST: {
		if (!x->nitems) {
			r = x;
			break;
		}
		const char *h = kl_head(x);
		if (!h) {
			fail(e, x, "a call must start with a symbol");
			break;
		}
		if (!strcmp(h, "quote")) {
			r = x->items[1];
		} else if (!strcmp(h, "quasiquote")) {
			r = qq(e, x->items[1], env);
		} else if (!strcmp(h, "if") || !strcmp(h, "when") || !strcmp(h, "unless")) {
			struct kl_node *c = x->nitems > 1 ? ev(e, x->items[1], env) : NULL;
			if (!c)
				break;
			bool yes = !is_nil(c) != (h[0] == 'u');
			if (h[0] == 'i')
				r = yes ? (x->nitems > 2 ? ev(e, x->items[2], env) : nil(e))
					: (x->nitems > 3 ? ev(e, x->items[3], env) : nil(e));
			else
				r = yes ? run_body(e, x->items + 2, x->nitems - 2, env) : nil(e);
		} else if (!strcmp(h, "cond")) {
			r = nil(e);
			for (uint32_t i = 1; i < x->nitems; i++) {
				struct kl_node *cl = x->items[i];
				struct kl_node *c = cl->kind == KL_N_LIST && cl->nitems ? ev(e, cl->items[0], env) : NULL;
				if (!c) {
					r = c ? r : NULL;
					if (!c && !e->c->d->nerrors)
						fail(e, cl, "cond clause must be (TEST BODY...)");
					break;
				}
				if (!is_nil(c)) {
					r = cl->nitems > 1 ? run_body(e, cl->items + 1, cl->nitems - 1, env) : c;
					break;
				}
			}
		} else if (!strcmp(h, "progn")) {
			r = run_body(e, x->items + 1, x->nitems - 1, env);
		} else if (!strcmp(h, "and") || !strcmp(h, "or")) {
			bool is_and = h[0] == 'a';
			r = is_and ? sym(e, "t") : nil(e);
			for (uint32_t i = 1; i < x->nitems; i++) {
				if (!(r = ev(e, x->items[i], env)))
					break;
				if (is_nil(r) == is_and)
					break;
			}
		} else if (!strcmp(h, "let") || !strcmp(h, "let*")) {
			r = ev_let(e, x, env, h[3] == '*');
		} else if (!strcmp(h, "lambda")) {
			if (x->nitems < 2 || x->items[1]->kind != KL_N_LIST)
				fail(e, x, "lambda needs a parameter list");
			else
				r = make_closure(e, x, env);
		} else if (!strcmp(h, "destructuring-bind")) {
			/* (destructuring-bind LAMBDA-LIST EXPR BODY...) */
			struct kl_node *v = x->nitems >= 3 && x->items[1]->kind == KL_N_LIST ? ev(e, x->items[2], env) : NULL;
			struct env *nenv = env;
			if (x->nitems < 3 || x->items[1]->kind != KL_N_LIST)
				fail(e, x, "destructuring-bind needs a lambda list and a value");
			else if (v && (v = as_list(e, v, "destructuring-bind")) && !destructure(e, x->items[1], v, &nenv))
				r = run_body(e, x->items + 3, x->nitems - 3, nenv);
		} else if (!strcmp(h, "dolist")) {
			/* (dolist (VAR LIST [RESULT]) BODY...) */
			struct kl_node *spec = x->nitems >= 2 ? x->items[1] : NULL;
			if (!spec || spec->kind != KL_N_LIST || spec->nitems < 2 || spec->items[0]->kind != KL_N_SYM) {
				fail(e, x, "dolist needs (VAR LIST [RESULT])");
				break;
			}
			struct kl_node *lst = ev(e, spec->items[1], env);
			if (!lst || !(lst = as_list(e, lst, "dolist")))
				break;
			bool ok = true;
			for (uint32_t i = 0; i < lst->nitems && ok; i++)
				ok = run_body(e, x->items + 2, x->nitems - 2, bind(e, env, spec->items[0]->str, lst->items[i])) != NULL;
			if (ok)
				r = spec->nitems > 2 ? ev(e, spec->items[2], bind(e, env, spec->items[0]->str, nil(e))) : nil(e);
		} else if (!strcmp(h, "function")) {
			r = x->items[1]->kind == KL_N_LIST ? ev(e, x->items[1], env) : x->items[1];
		} else {
			struct kl_node *args[64];
			if (x->nitems - 1 > 64) {
				fail(e, x, "too many arguments");
				break;
			}
			uint32_t n = x->nitems - 1;
			bool ok = true;
			for (uint32_t i = 0; i < n && ok; i++)
				ok = (args[i] = ev(e, x->items[i + 1], env)) != NULL;
			if (!ok)
				break;
			bool found = false;
			for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
				if (!strcmp(builtins[i].name, h)) {
					found = true;
					if (n < builtins[i].min || n > builtins[i].max)
						fail(e, x, "'%s' takes %u to %u arguments, got %u", h, builtins[i].min,
						     builtins[i].max, n);
					else
						r = builtins[i].fn(e, args, n, x);
					break;
				}
			if (!found)
				fail(e, x, "'%s' is not a function available in macro bodies", h);
		}
		break;
	}
	}
	e->depth--;
	return r;
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
	struct ev e = { c, n->span, m, 0 };
	struct env *env = NULL;
	struct kl_node *args = list_of(&e, n->items + 1, n->nitems - 1);
	if (destructure(&e, m->params, args, &env))
		return NULL;
	struct kl_node *r = run_body(&e, m->body, m->nbody, env);
	if (!r && !c->d->nerrors)
		kl_error(c->d, n->span, "macro '%s' failed to expand", m->name);
	if (r && m->form->span.src != n->span.src)
		r = respan(c->a, r, &n->span, 0);
	return r;
}
