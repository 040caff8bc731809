/* typespec.c — a type or a constant as the source spells it (typespec.h): u32, a defstruct
 * name, (array T N), (* T) with T kiln's, a local CO-RE struct or the kernel's (core.c); and
 * constant expressions folded as the BPF machine computes them, over the constants and
 * structs defs.c holds. Above both defs.c and core.c. */
#define _GNU_SOURCE
#include "compile.h"
#include "typespec.h"
#include "core.h"
#include "kbtf.h"
#include <ctype.h>
#include <string.h>
#include <strings.h>

static int form_error(struct kl_comp *c, const struct kl_node *n, const char *what)
{
	char buf[160];
	kl_node_str(n, buf, sizeof(buf));
	return kl_error(c->d, n->span, "%s: %s", what, buf);
}


struct kl_type *kl_type_parse(struct kl_comp *c, const struct kl_node *n)
{
	if (n->kind == KL_N_SYM || n->kind == KL_N_KEY) {
		struct kl_type *t = kl_type_builtin(n->str);
		if (t)
			return t;
		struct kl_structdef *s = kl_struct_lookup(c, n->str);
		if (s)
			return s->type;
		kl_error(c->d, n->span, "unknown type '%s' (expected u8 u16 u32 u64 i8 i16 i32 i64 char ptr ipv4 ipv6 kstack ustack, "
			 "a kernel or C integer name (s32 __u16 __be32 int unsigned-long long-long bool size_t...), "
			 "a defstruct name, (array TYPE N) or (* TYPE))", n->str);
		return NULL;
	}
	if (kl_head(n) && !strcmp(kl_head(n), "*") && n->nitems == 2) {
		/* (* TYPE): TYPE is kiln's, a local CO-RE struct, or the kernel's */
		const struct kl_node *tn = n->items[1];
		struct kl_type *elem = NULL;
		if (tn->kind == KL_N_SYM && c->defining && !strcasecmp(c->defining->name, tn->str))
			elem = c->defining;
		else if (tn->kind == KL_N_SYM && !kl_type_builtin(tn->str) && !kl_struct_lookup(c, tn->str))
			elem = kl_core_type(c, kl_name(tn), KL_KB_STRUCT | KL_KB_ENUM, tn->span);
		else
			elem = kl_type_parse(c, tn);
		if (!elem)
			return NULL;
		struct kl_type *t = kl_arena_new(c->a, struct kl_type);
		t->kind = KL_T_PTR;
		t->size = t->align = 8;
		t->elem = elem;
		return t;
	}
	if (kl_head(n) && !strcmp(kl_head(n), "array") && n->nitems == 3) {
		struct kl_type *elem = kl_type_parse(c, n->items[1]);
		int64_t count;
		if (!elem || kl_const_eval(c, n->items[2], &count))
			return NULL;
		if (count <= 0 || count > 65536) {
			kl_error(c->d, n->items[2]->span, "array length %lld is out of range 1..65536", (long long)count);
			return NULL;
		}
		return kl_type_array(c->a, elem, (uint32_t)count);
	}
	form_error(c, n, "not a type");
	return NULL;
}

/* ---- constant expressions ---- */


struct const_op {
	const char *name;
	uint8_t alu;
	int64_t unit;       /* value for zero operands; folded left to right */
	bool binary_only;
};

static const struct const_op const_ops[] = {
	{ "+", BPF_ADD, 0, false }, { "-", BPF_SUB, 0, false }, { "*", BPF_MUL, 1, false },
	{ "/", BPF_DIV, 0, true }, { "mod", BPF_MOD, 0, true }, { "logand", BPF_AND, -1, false },
	{ "logior", BPF_OR, 0, false }, { "logxor", BPF_XOR, 0, false }, { "<<", BPF_LSH, 0, true },
	{ ">>", BPF_RSH, 0, true }, { ">>>", BPF_ARSH, 0, true },
};

/* 'NAME as NAME: clj-ebpf's event forms take the event unquoted, macros often quote it */
static const struct kl_node *unquoted(const struct kl_node *n)
{
	const char *h = kl_head(n);
	return h && !strcmp(h, "quote") && n->nitems == 2 ? n->items[1] : n;
}

static const struct kl_field *event_field(struct kl_comp *c, const struct kl_node *ev,
					  const struct kl_node *fn, struct kl_type **st)
{
	ev = unquoted(ev);
	struct kl_structdef *s = ev->kind == KL_N_SYM ? kl_struct_lookup(c, ev->str) : NULL;
	if (!s) {
		form_error(c, ev, "not a defstruct or defevent name");
		return NULL;
	}
	*st = s->type;
	const struct kl_field *f = (fn->kind == KL_N_SYM || fn->kind == KL_N_KEY)
					   ? kl_type_field(s->type, fn->str) : NULL;
	if (!f)
		kl_error(c->d, fn->span, "%s has no field '%s'", s->name,
			 fn->kind == KL_N_SYM || fn->kind == KL_N_KEY ? fn->str : "?");
	return f;
}

/* (event-size EV) in a constant expression: a defevent or defstruct (or any type, as sizeof) */
static int event_size(struct kl_comp *c, const struct kl_node *ev, int64_t *out)
{
	ev = unquoted(ev);
	struct kl_diag saved = *c->d;
	struct kl_type *t = kl_type_parse(c, ev);
	if (!t && ev->kind == KL_N_SYM) {   /* a name, neither an event nor a type: say so */
		*c->d = saved;
		return kl_error(c->d, ev->span, "event-size: '%s' is not a defevent or defstruct", kl_name(ev));
	}
	if (!t)
		return -1;
	*out = t->size;
	return 0;
}

int kl_const_eval(struct kl_comp *c, const struct kl_node *n, int64_t *out)
{
	if (n->kind == KL_N_INT) {
		*out = n->ival;
		return 0;
	}
	if (n->kind == KL_N_SYM) {
		if (kl_const_lookup(c, n->str, out))
			return 0;
		return kl_error(c->d, n->span, "'%s' is not a constant", n->str);
	}
	const char *h = kl_head(n);
	if (!h)
		return form_error(c, n, "not a constant expression");
	for (size_t i = 0; i < sizeof(const_ops) / sizeof(const_ops[0]); i++) {
		const struct const_op *op = &const_ops[i];
		if (strcmp(op->name, h))
			continue;
		if (op->binary_only && n->nitems != 3)
			return kl_error(c->d, n->span, "'%s' takes 2 arguments, got %u", h, n->nitems - 1);
		int64_t acc = op->unit, v;
		for (uint32_t k = 1; k < n->nitems; k++) {
			if (kl_const_eval(c, n->items[k], &v))
				return -1;
			acc = k == 1 && (n->nitems > 2 || op->alu != BPF_SUB) ? v : kl_fold(op->alu, acc, v);
		}
		*out = acc;
		return 0;
	}
	if (!strcmp(h, "lognot") && n->nitems == 2) {
		if (kl_const_eval(c, n->items[1], out))
			return -1;
		*out = ~*out;
		return 0;
	}
	if (!strcmp(h, "event-size") && n->nitems == 2)
		return event_size(c, n->items[1], out);
	if (!strcmp(h, "event-fields") || !strcmp(h, "event-field-type"))
		return kl_error(c->d, n->span, "(%s ...) is a %s at compile time, not a number: use it in a macro",
				h, h[11] == '-' ? "keyword" : "list of keywords");
	if (!strcmp(h, "sizeof") && n->nitems == 2) {
		struct kl_type *t = kl_type_parse(c, n->items[1]);
		if (!t)
			return -1;
		*out = t->size;
		return 0;
	}
	if ((!strcmp(h, "offsetof") || !strcmp(h, "event-field-offset") ||
	     !strcmp(h, "event-field-size")) && n->nitems == 3) {
		struct kl_type *st;
		const struct kl_field *f = event_field(c, n->items[1], n->items[2], &st);
		if (!f)
			return -1;
		*out = !strcmp(h, "event-field-size") ? f->type->size : f->offset;
		return 0;
	}
	return form_error(c, n, "not a constant expression");
}
