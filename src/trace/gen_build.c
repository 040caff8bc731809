/* gen_build.c — nodes from templates (gen_build.h). A template is walked once, left to right:
 * blanks end an atom, brackets open and close lists on the builder's stack, and an atom's
 * characters, holes filled, are classified as the reader classifies a token (so a template
 * makes the very nodes kiln's reader would make of the same code). Only the atom being made
 * is ever characters; lists are never text. Linear in the template and its holes. */
#include "trace/gen_build.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef KL_VEC(char) chars;

#define KL_STR_(x) #x
#define KL_STR(x) KL_STR_(x)

static void fail(struct kt_build *b, const char *what)
{
	if (!b->err)
		b->err = kl_error(b->d, b->cur, "%s", what);
}

/* One more node made: past the limit, the error. */
static void count(struct kt_build *b)
{
	if (++b->nodes > KT_BUILD_NODES)
		fail(b, "kiln trace's generated code has more than " KL_STR(KT_BUILD_NODES) " nodes; kiln compiles at most "
		     "that many");
}

static struct kl_node *new_node(struct kt_build *b, enum kl_node_kind kind)
{
	count(b);
	struct kl_node *n = kl_arena_new(b->a, struct kl_node);
	*n = (struct kl_node){ .kind = kind, .span = b->cur };
	return n;
}

static void append(struct kt_build *b, struct kl_node *n)
{
	if (b->open.len)
		kl_vec_push(b->a, &b->open.items[b->open.len - 1].items, n);
	else
		kl_vec_push(b->a, &b->forms, n);
}

/* ---- atoms ---- */

struct kl_node *kt_atom(struct kt_build *b, const char *t)
{
	const char *why = NULL;
	struct kl_node *n = t[0] ? kl_atom_node(b->a, t, strlen(t), b->cur, &why) : NULL;
	if (!n) {   /* a hole's text that reads as no atom: a generator bug */
		fail(b, "kiln trace made a malformed atom");
		return NULL;
	}
	count(b);
	return n;
}

/* A copy of n (a hole's node) taking the current span. */
static struct kl_node *copy(struct kt_build *b, const struct kl_node *n, uint32_t depth)
{
	if (depth > KT_BUILD_DEPTH) {
		fail(b, "kiln trace's generated code nests too deeply");
		return new_node(b, KL_N_INT);
	}
	struct kl_node *c = new_node(b, n->kind);
	*c = *n;
	c->span = b->cur;
	if (n->kind == KL_N_LIST) {
		c->items = kl_arena_array(b->a, struct kl_node *, n->nitems ? n->nitems : 1);
		for (uint32_t i = 0; i < n->nitems; i++)
			c->items[i] = copy(b, n->items[i], depth + 1);
	}
	return c;
}

/* ---- holes ---- */

/* The hole at *tp (after '%') filled into out; *tp moved past it. A %p hole gives its node. */
static struct kl_node *hole(struct kt_build *b, const char **tp, va_list *ap, chars *out)
{
	char spec[16] = "%", val[64];
	size_t k = 1;
	const char *t = *tp;
	while (k < sizeof(spec) - 2 && *t && strchr("#0- +123456789hlz", *t))
		spec[k++] = *t++;
	char conv = *t, len = k > 1 ? spec[k - 1] : 0;   /* NUL: no conversion, and t stays on it */
	t += conv != 0;
	bool ll = k > 2 && spec[k - 2] == 'l' && len == 'l';
	spec[k++] = conv;
	spec[k] = 0;
	*tp = t;
	int n = 0;
	switch (conv) {
	case '%': kl_vec_push(b->a, out, '%'); return NULL;
	case 'p': return va_arg(*ap, struct kl_node *);
	case 's': {
		for (const char *s = va_arg(*ap, const char *); *s; s++)
			kl_vec_push(b->a, out, *s);
		return NULL;
	}
	case 'c': val[0] = (char)va_arg(*ap, int); n = 1; break;
	case 'd': case 'i':
		n = ll ? snprintf(val, sizeof(val), spec, va_arg(*ap, long long))
		    : len == 'l' ? snprintf(val, sizeof(val), spec, va_arg(*ap, long))
		    : len == 'z' ? snprintf(val, sizeof(val), spec, va_arg(*ap, ssize_t))
		    : snprintf(val, sizeof(val), spec, va_arg(*ap, int));
		break;
	case 'u': case 'x': case 'X':
		n = ll ? snprintf(val, sizeof(val), spec, va_arg(*ap, unsigned long long))
		    : len == 'l' ? snprintf(val, sizeof(val), spec, va_arg(*ap, unsigned long))
		    : len == 'z' ? snprintf(val, sizeof(val), spec, va_arg(*ap, size_t))
		    : snprintf(val, sizeof(val), spec, va_arg(*ap, unsigned));
		break;
	default:
		fail(b, "kiln trace's template has an unknown hole");
		return NULL;
	}
	for (int i = 0; i < n && i < (int)sizeof(val); i++)
		kl_vec_push(b->a, out, val[i]);
	return NULL;
}

/* ---- lists ---- */

static void open_list(struct kt_build *b, bool vector)
{
	if (b->open.len >= KT_BUILD_DEPTH) {
		fail(b, "kiln trace's generated code nests too deeply");
		return;
	}
	struct kt_frame f = { new_node(b, KL_N_LIST), { 0 } };
	f.list->vector = vector;
	kl_vec_push(b->a, &b->open, f);
}

static void close_list(struct kt_build *b, bool vector)
{
	if (!b->open.len || b->open.items[b->open.len - 1].list->vector != vector) {
		fail(b, "kiln trace made an unbalanced form");
		return;
	}
	struct kt_frame *f = &b->open.items[--b->open.len];
	f->list->items = f->items.items;
	f->list->nitems = (uint32_t)f->items.len;
	append(b, f->list);
}

static bool delim(char c)
{
	return !c || isspace((unsigned char)c) || strchr("()[]\"", c);
}

/* One atom or string at *tp, holes filled. */
static void atom(struct kt_build *b, const char **tp, va_list *ap)
{
	const char *t = *tp;
	bool str = *t == '"';
	chars s = { 0 };
	t += str;
	if (!str && t[0] == '%' && t[1] == 'p' && delim(t[2])) {   /* a node of its own */
		*tp = t + 2;
		struct kl_node *n = va_arg(*ap, struct kl_node *);
		if (n)
			append(b, copy(b, n, 0));
		else
			fail(b, "kiln trace's template has an empty node hole");
		return;
	}
	while (str ? *t && *t != '"' : !delim(*t)) {
		if (*t != '%') {
			kl_vec_push(b->a, &s, *t++);
			continue;
		}
		t++;
		if (hole(b, &t, ap, &s))
			fail(b, "kiln trace's template has a node hole inside an atom");
	}
	if (str && *t != '"')
		fail(b, "kiln trace's template has an unterminated string");
	*tp = t + (str && *t == '"');   /* never past an unterminated string's NUL */
	kl_vec_push(b->a, &s, '\0');
	if (str) {
		struct kl_node *n = new_node(b, KL_N_STR);
		n->str = s.items;
		n->ival = (int64_t)s.len - 1;
		append(b, n);
		return;
	}
	for (size_t i = 0; i + 1 < s.len; i++)
		if (delim(s.items[i])) {   /* a hole's text that is no atom: a generator bug */
			fail(b, "kiln trace made a malformed atom");
			return;
		}
	struct kl_node *n = kt_atom(b, s.items);
	if (n)
		append(b, n);
}

static void vemit(struct kt_build *b, const char *t, va_list *ap)
{
	while (*t && !b->err) {
		if (isspace((unsigned char)*t))
			t++;
		else if (*t == '(' || *t == '[')
			open_list(b, *t++ == '[');
		else if (*t == ')' || *t == ']')
			close_list(b, *t++ == ']');
		else
			atom(b, &t, ap);
	}
}

void kt_emit(struct kt_build *b, const char *tmpl, ...)
{
	va_list ap;
	va_start(ap, tmpl);
	vemit(b, tmpl, &ap);
	va_end(ap);
}

static void emit_list(struct kt_build *b, const char *tmpl, ...)
{
	va_list ap;
	va_start(ap, tmpl);
	vemit(b, tmpl, &ap);
	va_end(ap);
}

void kt_emit_fixed(struct kt_build *b, const char *tmpl)
{
	if (strchr(tmpl, '%'))
		fail(b, "kiln trace's fixed template has a hole");
	else
		emit_list(b, tmpl);
}

struct kl_node *kt_form(struct kt_build *b, const char *tmpl, ...)
{
	struct kt_build f = { .a = b->a, .d = b->d, .cur = b->cur, .nodes = b->nodes, .err = b->err };
	va_list ap;
	va_start(ap, tmpl);
	vemit(&f, tmpl, &ap);
	va_end(ap);
	if (!f.err && (f.open.len || f.forms.len != 1))
		fail(&f, "kiln trace made an unbalanced form");
	b->err = f.err;
	b->nodes = f.nodes;
	return f.err ? NULL : f.forms.items[0];
}

struct kl_span kt_build_enter(struct kt_build *b, struct kl_span at)
{
	struct kl_span prev = b->cur;
	b->cur = at;
	return prev;
}

int kt_build_end(struct kt_build *b, struct kl_node ***forms, uint32_t *nforms)
{
	if (!b->err && b->open.len)
		fail(b, "kiln trace made an unbalanced form");
	if (b->err)
		return -1;
	*forms = b->forms.items;
	*nforms = (uint32_t)b->forms.len;
	return 0;
}
