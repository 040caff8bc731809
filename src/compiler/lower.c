/* lower.c — expressions to IR. Each special form is a row in a table; values are constants
 * (folded on the way) or virtual registers; conditions lower straight to branches so the
 * verifier sees the packet and null checks the program wrote. */
#include "compile.h"
#include "expand.h"
#include "nearest.h"
#include "tracefs.h"
#include <ctype.h>
#include <linux/pkt_cls.h>
#include <stdio.h>
#include <string.h>

enum { V_CONST, V_REG };
struct val {
	int kind;
	int64_t c;
	kl_vreg r;
	bool is_var;          /* the register of a mutable variable: copy before aliasing it */
	bool is_ptr;          /* known to be a pointer (stack buffer, map value, packet...) */
	uint8_t misalign;     /* a pointer this many bytes past an 8-aligned address (0..7) */
};

struct binding {
	const char *name;
	struct val v;
	bool mutable;
	const struct kl_type *type;   /* declared integer type: values are truncated to it */
	bool used;                    /* read somewhere in its scope */
	const struct kl_node *at;     /* written by the user: warn if never read (NULL: do not) */
};

struct lw {
	struct kl_comp *c;
	struct kl_ir_func *f;
	KL_VEC(struct binding) scope;
	const struct kl_prog_type *pt;   /* NULL in a defun */
	const char *section;             /* the program's section */
	kl_vreg ctx;
	struct kl_span span;             /* of the form being lowered, for line info */
	uint32_t loop_depth;
	struct { kl_vreg rec; uint32_t done; } events[8];  /* with-event records open, innermost last */
	uint32_t nevents;
	struct kl_span calls[8];         /* macro calls being lowered, innermost last */
	uint32_t ncalls;
};

typedef int (*form_fn)(struct lw *, struct kl_node *, struct val *);

static int lower(struct lw *l, struct kl_node *n, struct val *out);

/* ---- IR building ---- */

static struct kl_ir_ins *emit(struct lw *l, uint8_t op)
{
	struct kl_ir_func *f = l->f;
	if (f->nins == f->cap) {
		uint32_t nc = f->cap ? f->cap * 2 : 64;
		f->ins = kl_arena_grow(l->c->a, f->ins, f->cap * sizeof(*f->ins), nc * sizeof(*f->ins));
		f->cap = nc;
	}
	struct kl_ir_ins *i = &f->ins[f->nins++];
	memset(i, 0, sizeof(*i));
	i->op = op;
	i->span = l->span;
	return i;
}

static kl_vreg vreg(struct lw *l) { return l->f->nvregs++; }
static uint32_t label(struct lw *l) { return ++l->f->nlabels; }

static void place(struct lw *l, uint32_t lab) { emit(l, IR_LABEL)->label = lab; }
static void jump(struct lw *l, uint32_t lab) { emit(l, IR_JMP)->label = lab; }

static uint32_t slot(struct lw *l, uint32_t size, uint32_t align)
{
	return kl_ir_slot(l->c->a, l->f, size, align);
}

static bool fits32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

static struct val cval(int64_t c) { return (struct val){ V_CONST, c, 0, false, false, 0 }; }
static struct val rval(kl_vreg r) { return (struct val){ V_REG, 0, r, false, false, 0 }; }
static struct val pval(kl_vreg r) { return (struct val){ V_REG, 0, r, false, true, 0 }; }

/* The value in a register (materialising a constant). */
static kl_vreg reg_of(struct lw *l, struct val v)
{
	if (v.kind == V_REG)
		return v.r;
	struct kl_ir_ins *i = emit(l, IR_MOVI);
	i->d = vreg(l);
	i->imm = v.c;
	return i->d;
}

/* A register the caller may overwrite. */
static kl_vreg fresh_copy(struct lw *l, struct val v)
{
	if (v.kind == V_CONST)
		return reg_of(l, v);
	struct kl_ir_ins *i = emit(l, IR_MOV);
	i->d = vreg(l);
	i->a = v.r;
	return i->d;
}

static void move_to(struct lw *l, kl_vreg d, struct val v)
{
	struct kl_ir_ins *i;
	if (v.kind == V_CONST) {
		i = emit(l, IR_MOVI);
		i->imm = v.c;
	} else {
		if (v.r == d)
			return;
		i = emit(l, IR_MOV);
		i->a = v.r;
	}
	i->d = d;
}

static kl_vreg alu(struct lw *l, uint8_t op, struct val a, struct val b)
{
	kl_vreg ra = reg_of(l, a);
	kl_vreg rb = b.kind == V_CONST && fits32(b.c) ? 0 : reg_of(l, b);
	struct kl_ir_ins *i = emit(l, IR_ALU);
	i->alu = op;
	i->a = ra;
	if (rb) {
		i->b = rb;
	} else {
		i->has_imm = true;
		i->imm = b.c;
	}
	i->d = vreg(l);
	return i->d;
}

/* r = r <op> imm, in place (a loop counter, an accumulator) */
static void alu_in_place(struct lw *l, uint8_t op, kl_vreg r, int64_t imm)
{
	struct kl_ir_ins *i = emit(l, IR_ALU);
	i->alu = op;
	i->d = i->a = r;
	i->has_imm = true;
	i->imm = imm;
}

static void branch(struct lw *l, uint8_t cond, struct val a, struct val b, uint32_t lab)
{
	kl_vreg ra = reg_of(l, a);
	kl_vreg rb = 0;
	if (!(b.kind == V_CONST && fits32(b.c)))
		rb = reg_of(l, b);
	struct kl_ir_ins *i = emit(l, IR_BR);
	i->alu = cond;
	i->a = ra;
	i->label = lab;
	if (rb)
		i->b = rb;
	else {
		i->has_imm = true;
		i->imm = b.c;
	}
}

/* ---- errors ---- */

static int err_form(struct lw *l, const struct kl_node *n, const char *fmt, const char *what)
{
	char buf[160];
	kl_node_str(n, buf, sizeof(buf));
	return kl_error(l->c->d, n->span, fmt, what, buf);
}

static int arity(struct lw *l, struct kl_node *n, uint32_t min, uint32_t max)
{
	uint32_t got = n->nitems - 1;
	if (got >= min && got <= max)
		return 0;
	char buf[160];
	kl_node_str(n, buf, sizeof(buf));
	if (min == max)
		return kl_error(l->c->d, n->span, "'%s' takes %u argument%s, got %u: %s", n->items[0]->str, min,
				min == 1 ? "" : "s", got, buf);
	if (max == UINT32_MAX)
		return kl_error(l->c->d, n->span, "'%s' takes at least %u argument%s, got %u: %s", n->items[0]->str,
				min, min == 1 ? "" : "s", got, buf);
	return kl_error(l->c->d, n->span, "'%s' takes %u to %u arguments, got %u: %s", n->items[0]->str, min,
			max, got, buf);
}

/* ---- scopes ---- */

static struct binding *find_var(struct lw *l, const char *name)
{
	for (size_t i = l->scope.len; i-- > 0;)
		if (!strcmp(l->scope.items[i].name, name))
			return &l->scope.items[i];
	return NULL;
}

/* Whether a node is the user's own: in the program's file, and not made by a macro (a
 * macro's nodes carry the span of its call, or lie outside the call's text). */
static bool user_written(struct lw *l, const struct kl_node *n)
{
	if (!n || n->span.src != l->c->src)
		return false;
	if (l->c->expansions == 0)
		return true;
	if (l->ncalls == 0 || l->ncalls > sizeof(l->calls) / sizeof(l->calls[0]))
		return false;
	const struct kl_span *call = &l->calls[l->ncalls - 1];
	return call->src == n->span.src &&
	       (n->span.line > call->line || (n->span.line == call->line && n->span.col > call->col));
}

/* The bindings made since scope mark going out of scope: a warning for each one the user
 * wrote and nothing read (unless named _x or declared (declare (ignore x))). */
static void warn_unused(struct lw *l, size_t mark)
{
	for (size_t i = mark; i < l->scope.len; i++) {
		const struct binding *b = &l->scope.items[i];
		if (!b->used && b->at && b->name[0] != '_')
			kl_warn(l->c->d, b->at->span, "'%s' is bound but never used (name it _%s or declare it "
				"(declare (ignore %s)) if that is meant)", b->name, b->name, b->name);
	}
}

/* Does body assign the variable `name` (setf/incf/decf of the bare symbol)? Macro calls
 * are looked at through their expansion. */
static bool assigns(struct kl_comp *c, struct kl_node *n, const char *name)
{
	if (n->kind != KL_N_LIST)
		return false;
	const char *h = kl_head(n);
	if (kl_macro_is(c, h)) {
		int errors = c->d->nerrors;
		struct kl_node *x = kl_macro_expand(c, n);
		if (!x) {
			c->d->nerrors = errors;   /* reported again when the form itself is lowered */
			return false;
		}
		c->expansions++;
		bool r = assigns(c, x, name);
		c->expansions--;
		return r;
	}
	if (h && (!strcmp(h, "setf") || !strcmp(h, "setq"))) {
		for (uint32_t i = 1; i < n->nitems; i += 2)
			if (kl_is_sym(n->items[i], name))
				return true;
	} else if (h && (!strcmp(h, "incf") || !strcmp(h, "decf")) && n->nitems > 1 &&
		   kl_is_sym(n->items[1], name)) {
		return true;
	}
	for (uint32_t i = 0; i < n->nitems; i++)
		if (assigns(c, n->items[i], name))
			return true;
	return false;
}

static bool body_assigns(struct lw *l, struct kl_node **body, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (assigns(l->c, body[i], name))
			return true;
	return false;
}

static struct val truncate(struct lw *l, struct val v, uint32_t size, bool sign);

static void bind_typed(struct lw *l, const char *name, struct val v, bool mutable, const struct kl_type *t)
{
	if (t && t->kind == KL_T_INT && t->size < 8)
		v = truncate(l, v, t->size, t->is_signed);
	else if (t && t->kind == KL_T_PTR)
		v.is_ptr = true;
	bool ptr = v.is_ptr;
	uint8_t mis = v.misalign;
	if (mutable) {
		kl_vreg r = vreg(l);
		move_to(l, r, v);
		v = rval(r);
		v.is_var = true;
	} else if (v.is_var) {
		v = rval(fresh_copy(l, v));
	}
	v.is_ptr = ptr;
	v.misalign = mis;
	struct binding b = { name, v, mutable, t, false, NULL };
	kl_vec_push(l->c->a, &l->scope, b);
}

static void bind(struct lw *l, const char *name, struct val v, bool mutable)
{
	bind_typed(l, name, v, mutable, NULL);
}

static int lower_body(struct lw *l, struct kl_node **body, uint32_t n, struct val *out)
{
	*out = cval(0);
	for (uint32_t i = 0; i < n; i++)
		if (lower(l, body[i], out))
			return -1;
	return 0;
}

/* ---- conditions ---- */

struct cmp_op { const char *name; uint8_t cond; };
static const struct cmp_op cmp_ops[] = {
	{ "=", BPF_JEQ }, { "/=", BPF_JNE }, { "<", BPF_JLT }, { "<=", BPF_JLE }, { ">", BPF_JGT },
	{ ">=", BPF_JGE }, { "s<", BPF_JSLT }, { "s<=", BPF_JSLE }, { "s>", BPF_JSGT }, { "s>=", BPF_JSGE },
	{ "==", BPF_JEQ }, { "!=", BPF_JNE },
};

/* The condition with its operands swapped: a < b is b > a. */
static uint8_t swap_cond(uint8_t c)
{
	static const uint8_t sw[][2] = {
		{ BPF_JGT, BPF_JLT }, { BPF_JGE, BPF_JLE }, { BPF_JSGT, BPF_JSLT }, { BPF_JSGE, BPF_JSLE },
	};
	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
		if (sw[i][0] == c) return sw[i][1];
		if (sw[i][1] == c) return sw[i][0];
	}
	return c;
}

static bool cond_holds(uint8_t cond, int64_t a, int64_t b)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
	switch (cond) {
	case BPF_JEQ: return a == b;
	case BPF_JNE: return a != b;
	case BPF_JLT: return ua < ub;
	case BPF_JLE: return ua <= ub;
	case BPF_JGT: return ua > ub;
	case BPF_JGE: return ua >= ub;
	case BPF_JSLT: return a < b;
	case BPF_JSLE: return a <= b;
	case BPF_JSGT: return a > b;
	default: return a >= b;  /* BPF_JSGE */
	}
}

static const struct cmp_op *find_cmp(const char *h)
{
	for (size_t i = 0; h && i < sizeof(cmp_ops) / sizeof(cmp_ops[0]); i++)
		if (!strcmp(cmp_ops[i].name, h))
			return &cmp_ops[i];
	return NULL;
}

/* Jump to lab when the truth of n equals `when`; otherwise fall through. */
static int lower_branch(struct lw *l, struct kl_node *n, uint32_t lab, bool when)
{
	const char *h = kl_head(n);
	struct kl_span saved = l->span;
	if (n->kind == KL_N_LIST)
		l->span = n->span;
	int r = 0;
	const struct cmp_op *cmp = find_cmp(h);
	if (h && !strcmp(h, "not") && n->nitems == 2) {
		r = lower_branch(l, n->items[1], lab, !when);
	} else if (h && (!strcmp(h, "and") || !strcmp(h, "or"))) {
		bool is_and = h[0] == 'a';
		if (n->nitems == 1) {
			if (when == is_and)
				jump(l, lab);
		} else if (when != is_and) {
			/* and/false, or/true: any operand decides */
			for (uint32_t i = 1; i < n->nitems && !r; i++)
				r = lower_branch(l, n->items[i], lab, when);
		} else {
			uint32_t skip = label(l);
			for (uint32_t i = 1; i + 1 < n->nitems && !r; i++)
				r = lower_branch(l, n->items[i], skip, !when);
			if (!r)
				r = lower_branch(l, n->items[n->nitems - 1], lab, when);
			place(l, skip);
		}
	} else if (cmp && n->nitems == 3) {
		struct val a, b;
		if (lower(l, n->items[1], &a) || lower(l, n->items[2], &b)) {
			r = -1;
		} else {
			uint8_t cond = when ? cmp->cond : kl_cond_invert(cmp->cond);
			if (a.kind == V_CONST && b.kind == V_CONST) {
				if (cond_holds(cond, a.c, b.c))
					jump(l, lab);
			} else if (a.kind == V_CONST) {
				branch(l, swap_cond(cond), b, a, lab);
			} else {
				branch(l, cond, a, b, lab);
			}
		}
	} else {
		struct val v;
		if (lower(l, n, &v))
			r = -1;
		else if (v.kind == V_CONST) {
			if ((v.c != 0) == when)
				jump(l, lab);
		} else {
			branch(l, when ? BPF_JNE : BPF_JEQ, v, cval(0), lab);
		}
	}
	l->span = saved;
	return r;
}

/* A condition as a 0/1 value. */
static int bool_value(struct lw *l, struct kl_node *n, struct val *out)
{
	kl_vreg r = vreg(l);
	uint32_t done = label(l);
	move_to(l, r, cval(1));
	if (lower_branch(l, n, done, true))
		return -1;
	move_to(l, r, cval(0));
	place(l, done);
	*out = rval(r);
	return 0;
}

/* ---- control forms ---- */

static int f_progn(struct lw *l, struct kl_node *n, struct val *out)
{
	return lower_body(l, n->items + 1, n->nitems - 1, out);
}

static int f_if(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 2, 3))
		return -1;
	uint32_t lelse = label(l), lend = label(l);
	kl_vreg r = vreg(l);
	struct val v;
	if (lower_branch(l, n->items[1], lelse, false) || lower(l, n->items[2], &v))
		return -1;
	move_to(l, r, v);
	bool ptr = v.is_ptr;
	jump(l, lend);
	place(l, lelse);
	if (n->nitems == 4) {
		if (lower(l, n->items[3], &v))
			return -1;
	} else {
		v = cval(0);
	}
	move_to(l, r, v);
	place(l, lend);
	*out = rval(r);
	out->is_ptr = ptr && v.is_ptr;   /* (if c key-a key-b) of two struct keys is still a pointer */
	return 0;
}

static int when_unless(struct lw *l, struct kl_node *n, struct val *out, bool when)
{
	if (arity(l, n, 1, UINT32_MAX))
		return -1;
	uint32_t lskip = label(l);
	kl_vreg r = vreg(l);
	struct val v;
	move_to(l, r, cval(0));
	if (lower_branch(l, n->items[1], lskip, !when) || lower_body(l, n->items + 2, n->nitems - 2, &v))
		return -1;
	move_to(l, r, v);
	place(l, lskip);
	*out = rval(r);
	return 0;
}

static int f_when(struct lw *l, struct kl_node *n, struct val *out) { return when_unless(l, n, out, true); }
static int f_unless(struct lw *l, struct kl_node *n, struct val *out) { return when_unless(l, n, out, false); }

static int f_cond(struct lw *l, struct kl_node *n, struct val *out)
{
	uint32_t lend = label(l);
	kl_vreg r = vreg(l);
	bool closed = false;
	for (uint32_t i = 1; i < n->nitems; i++) {
		struct kl_node *cl = n->items[i];
		if (cl->kind != KL_N_LIST || cl->nitems < 1)
			return err_form(l, cl, "%s clause must be (TEST BODY...): %s", "cond");
		struct val v;
		uint32_t lnext = label(l);
		bool always = kl_is_sym(cl->items[0], "t") || kl_is_sym(cl->items[0], "else") ||
			      kl_is_key(cl->items[0], "else");
		if (!always && lower_branch(l, cl->items[0], lnext, false))
			return -1;
		if (cl->nitems == 1) {
			if (lower(l, cl->items[0], &v))  /* (cond (x)) yields x */
				return -1;
		} else if (lower_body(l, cl->items + 1, cl->nitems - 1, &v)) {
			return -1;
		}
		move_to(l, r, v);
		jump(l, lend);
		place(l, lnext);
		if (always) {
			closed = true;
			break;
		}
	}
	if (!closed)
		move_to(l, r, cval(0));
	place(l, lend);
	*out = rval(r);
	return 0;
}

static int f_andor(struct lw *l, struct kl_node *n, struct val *out)
{
	return bool_value(l, n, out);
}

static int f_not(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 1, 1))
		return -1;
	return bool_value(l, n, out);
}

static int f_return(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 0, 1))
		return -1;
	struct val v = cval(0);
	if (n->nitems == 2 && lower(l, n->items[1], &v))
		return -1;
	struct kl_ir_ins *i = emit(l, IR_RET);
	if (v.kind == V_CONST) {
		i->has_imm = true;
		i->imm = v.c;
	} else {
		i->a = v.r;
	}
	*out = cval(0);
	return 0;
}

/* One binding of let, let*, when-let or if-let: NAME, (NAME), (NAME VALUE), (NAME TYPE) or
 * (NAME TYPE VALUE). TYPE (u8 .. i64, ptr) gives the variable a width: its value is truncated
 * to the type when bound and whenever it is assigned, as a C variable of that type would be. */
struct bspec {
	const char *name;
	struct kl_node *init;        /* NULL: 0 */
	const struct kl_type *type;  /* NULL: 64 bits */
	const struct kl_node *at;    /* the name as written */
	bool ignore;                 /* (declare (ignore NAME)): never read, on purpose */
};

static const struct kl_type *var_type(const struct kl_node *n)
{
	const struct kl_type *t = n->kind == KL_N_SYM ? kl_type_builtin(n->str) : NULL;
	return t && (t->kind == KL_T_INT || t->kind == KL_T_PTR) ? t : NULL;
}

static int binding_spec(struct lw *l, const char *form, struct kl_node *b, struct bspec *out)
{
	memset(out, 0, sizeof(*out));
	if (b->kind == KL_N_SYM) {
		out->name = b->str;
		out->at = b;
		return 0;
	}
	if (b->kind != KL_N_LIST || !b->nitems || b->items[0]->kind != KL_N_SYM || b->nitems > 3)
		return err_form(l, b, "%s binding must be (NAME VALUE) or (NAME TYPE VALUE): %s", form);
	out->name = b->items[0]->str;
	out->at = b->items[0];
	if (b->nitems == 3) {
		if (!(out->type = var_type(b->items[1])))
			return err_form(l, b->items[1], "%s binding type must be u8 u16 u32 u64 i8 i16 i32 i64 or ptr: %s",
					form);
		out->init = b->items[2];
	} else if (b->nitems == 2) {
		out->type = find_var(l, b->items[1]->str ? b->items[1]->str : "") ? NULL : var_type(b->items[1]);
		if (!out->type)
			out->init = b->items[1];
	}
	return 0;
}

/* (declare (type TYPE VAR...) ...) forms opening a body: the types go to the matching
 * bindings; other declarations (ignore, ignorable, optimize...) mean nothing here. Returns
 * how many body forms were declarations. */
static int declarations(struct lw *l, struct kl_node **body, uint32_t nbody, struct bspec *specs, uint32_t nspecs,
			uint32_t *ndecl)
{
	*ndecl = 0;
	for (; *ndecl < nbody && kl_head(body[*ndecl]) && !strcmp(kl_head(body[*ndecl]), "declare"); (*ndecl)++) {
		struct kl_node *d = body[*ndecl];
		for (uint32_t k = 1; k < d->nitems; k++) {
			struct kl_node *spec = d->items[k];
			const char *h = kl_head(spec);
			if (h && (!strcmp(h, "ignore") || !strcmp(h, "ignorable"))) {
				for (uint32_t v = 1; v < spec->nitems; v++)
					for (uint32_t j = 0; j < nspecs; j++)
						if (kl_is_sym(spec->items[v], specs[j].name))
							specs[j].ignore = true;
				continue;
			}
			if (!h || strcmp(h, "type"))
				continue;
			const struct kl_type *t = spec->nitems >= 2 ? var_type(spec->items[1]) : NULL;
			if (!t)
				return err_form(l, spec, "%s needs (type TYPE VAR...) with TYPE u8 .. i64 or ptr: %s",
						"declare");
			for (uint32_t v = 2; v < spec->nitems; v++) {
				uint32_t j;
				for (j = 0; j < nspecs; j++)
					if (kl_is_sym(spec->items[v], specs[j].name)) {
						specs[j].type = t;
						break;
					}
				if (j == nspecs)
					return err_form(l, spec->items[v], "%s names a variable this form does not bind: %s",
							"declare");
			}
		}
	}
	return 0;
}

/* The binding just made by form is the user's (to warn about if never read), unless
 * ignored: the form is written in the program, not made by a macro (whose variables, like
 * dotimes', may well go unused). */
static void mark_user(struct lw *l, const struct kl_node *form, const struct bspec *sp)
{
	if (!sp->ignore && user_written(l, form) && user_written(l, sp->at))
		l->scope.items[l->scope.len - 1].at = sp->at;
}

/* (let ((x e) ...) body) and let*: let evaluates every init before binding any. */
static int let_common(struct lw *l, struct kl_node *n, struct val *out, bool sequential)
{
	if (arity(l, n, 1, UINT32_MAX))
		return -1;
	const char *form = n->items[0]->str;
	struct kl_node *bs = n->items[1];
	if (bs->kind != KL_N_LIST)
		return err_form(l, bs, "%s bindings must be a list ((NAME VALUE) ...): %s", form);
	size_t mark = l->scope.len;
	struct val vals[64];
	struct bspec specs[64];
	if (bs->nitems > 64)
		return err_form(l, bs, "%s has too many bindings: %s", form);
	for (uint32_t i = 0; i < bs->nitems; i++)
		if (binding_spec(l, form, bs->items[i], &specs[i]))
			return -1;
	uint32_t ndecl;
	if (declarations(l, n->items + 2, n->nitems - 2, specs, bs->nitems, &ndecl))
		return -1;
	struct kl_node **body = n->items + 2 + ndecl;
	uint32_t nbody = n->nitems - 2 - ndecl;
	for (uint32_t i = 0; i < bs->nitems; i++) {
		vals[i] = cval(0);
		if (specs[i].init && lower(l, specs[i].init, &vals[i]))
			return -1;
		if (sequential) {
			bind_typed(l, specs[i].name, vals[i], body_assigns(l, body, nbody, specs[i].name) ||
				   body_assigns(l, bs->items + i + 1, bs->nitems - i - 1, specs[i].name), specs[i].type);
			mark_user(l, n, &specs[i]);
		}
	}
	if (!sequential)
		for (uint32_t i = 0; i < bs->nitems; i++) {
			bind_typed(l, specs[i].name, vals[i], body_assigns(l, body, nbody, specs[i].name), specs[i].type);
			mark_user(l, n, &specs[i]);
		}
	int r = lower_body(l, body, nbody, out);
	if (!r && out->is_var)
		*out = rval(fresh_copy(l, *out));
	if (!r)
		warn_unused(l, mark);
	l->scope.len = mark;
	return r;
}

static int f_let(struct lw *l, struct kl_node *n, struct val *out) { return let_common(l, n, out, false); }
static int f_letstar(struct lw *l, struct kl_node *n, struct val *out) { return let_common(l, n, out, true); }

/* (when-let ((x e) ...) body), (when-let (x e) body), and if-let with an else form. The
 * bindings go in order, each seeing the ones before it, and stop at the first 0: later
 * values are not computed (so a lookup can depend on the pointer an earlier one found). */
static int bind_test(struct lw *l, struct kl_node *n, struct val *out, bool has_else)
{
	if (arity(l, n, 1, has_else ? 3 : UINT32_MAX))
		return -1;
	const char *form = n->items[0]->str;
	struct kl_node *bs = n->items[1];
	struct kl_node *one[1];
	struct kl_node **list = bs->items;
	uint32_t nb = bs->kind == KL_N_LIST ? bs->nitems : 0;
	/* the single-binding forms (x e) and (x TYPE e) */
	if (bs->kind == KL_N_LIST && (bs->nitems == 2 || bs->nitems == 3) && bs->items[0]->kind == KL_N_SYM) {
		one[0] = bs;
		list = one;
		nb = 1;
	}
	if (!nb || nb > 16)
		return err_form(l, bs, "%s needs bindings ((NAME VALUE) ...): %s", form);
	struct bspec specs[16];
	for (uint32_t i = 0; i < nb; i++) {
		if (list[i]->kind != KL_N_LIST || list[i]->nitems < 2)
			return err_form(l, list[i], "%s binding must be (NAME VALUE) or (NAME TYPE VALUE): %s", form);
		if (binding_spec(l, form, list[i], &specs[i]))
			return -1;
	}
	uint32_t lelse = label(l), lend = label(l);
	kl_vreg r = vreg(l);
	size_t mark = l->scope.len;
	uint32_t ndecl = 0;
	if (!has_else && declarations(l, n->items + 2, n->nitems - 2, specs, nb, &ndecl))
		return -1;
	struct kl_node **body = n->items + 2 + ndecl;
	uint32_t nbody = has_else ? (n->nitems >= 3 ? 1 : 0) : n->nitems - 2 - ndecl;
	for (uint32_t i = 0; i < nb; i++) {
		struct val bv = cval(0);
		if (specs[i].init && lower(l, specs[i].init, &bv))
			return -1;
		bind_typed(l, specs[i].name, bv, body_assigns(l, body, nbody, specs[i].name) ||
			   body_assigns(l, list + i + 1, nb - i - 1, specs[i].name), specs[i].type);
		mark_user(l, n, &specs[i]);
		branch(l, BPF_JEQ, l->scope.items[l->scope.len - 1].v, cval(0), lelse);
	}
	struct val v;
	if (lower_body(l, body, nbody, &v))
		return -1;
	warn_unused(l, mark);
	l->scope.len = mark;
	move_to(l, r, v);
	jump(l, lend);
	place(l, lelse);
	v = cval(0);
	if (has_else && n->nitems == 4 && lower(l, n->items[3], &v))
		return -1;
	move_to(l, r, v);
	place(l, lend);
	*out = rval(r);
	return 0;
}

static int f_when_let(struct lw *l, struct kl_node *n, struct val *out) { return bind_test(l, n, out, false); }
static int f_if_let(struct lw *l, struct kl_node *n, struct val *out) { return bind_test(l, n, out, true); }

static int f_dotimes(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 1, UINT32_MAX))
		return -1;
	struct kl_node *spec = n->items[1];
	if (spec->kind != KL_N_LIST || spec->nitems != 2 || spec->items[0]->kind != KL_N_SYM)
		return err_form(l, spec, "%s needs (VAR COUNT): %s", "dotimes");
	int64_t count;
	if (kl_const_eval(l->c, spec->items[1], &count))
		return -1;
	if (count < 0 || count > 1 << 20)
		return kl_error(l->c->d, spec->items[1]->span, "dotimes count %lld is out of range 0..1048576",
				(long long)count);
	size_t mark = l->scope.len;
	bind(l, spec->items[0]->str, cval(0), true);
	kl_vreg i = l->scope.items[l->scope.len - 1].v.r;
	uint32_t top = label(l), end = label(l);
	place(l, top);
	branch(l, BPF_JGE, rval(i), cval(count), end);
	struct val v;
	l->loop_depth++;
	if (lower_body(l, n->items + 2, n->nitems - 2, &v))
		return -1;
	l->loop_depth--;
	alu_in_place(l, BPF_ADD, i, 1);
	jump(l, top);
	place(l, end);
	l->scope.len = mark;
	*out = cval(0);
	return 0;
}

/* (loop :while COND BODY...) */
static int f_loop(struct lw *l, struct kl_node *n, struct val *out)
{
	if (n->nitems < 3 || !kl_is_key(n->items[1], "while"))
		return err_form(l, n, "%s must be (loop :while COND BODY...): %s", "loop");
	uint32_t top = label(l), end = label(l);
	place(l, top);
	if (lower_branch(l, n->items[2], end, false))
		return -1;
	struct val v;
	l->loop_depth++;
	if (lower_body(l, n->items + 3, n->nitems - 3, &v))
		return -1;
	l->loop_depth--;
	jump(l, top);
	place(l, end);
	*out = cval(0);
	return 0;
}

/* ---- arithmetic ---- */

struct arith_op {
	const char *name;
	uint8_t alu;
	bool commutative;
};

static const struct arith_op arith_ops[] = {
	{ "+", BPF_ADD, true }, { "-", BPF_SUB, false }, { "*", BPF_MUL, true }, { "/", BPF_DIV, false },
	{ "mod", BPF_MOD, false }, { "logand", BPF_AND, true }, { "logior", BPF_OR, true },
	{ "logxor", BPF_XOR, true }, { "<<", BPF_LSH, false }, { ">>", BPF_RSH, false },
	{ ">>>", BPF_ARSH, false }, { "rem", BPF_MOD, false },
};

/* One binary step with folding and the identities that need no code. */
static struct val arith2(struct lw *l, const struct arith_op *op, struct val a, struct val b)
{
	if (a.kind == V_CONST && b.kind == V_CONST)
		return cval(kl_fold(op->alu, a.c, b.c));
	if (a.kind == V_CONST && op->commutative) {
		struct val t = a;
		a = b;
		b = t;
	}
	if (b.kind == V_CONST) {
		int64_t k = b.c;
		switch (op->alu) {
		case BPF_ADD: case BPF_SUB: case BPF_OR: case BPF_XOR:
			if (k == 0) return a;
			break;
		case BPF_MUL:
			if (k == 1) return a;
			if (k == 0) return cval(0);
			break;
		case BPF_DIV:
			if (k == 0) return cval(0);        /* BPF: x / 0 = 0 */
			if (k == 1) return a;
			break;
		case BPF_MOD:
			if (k == 0) return a;              /* BPF: x % 0 = x */
			break;
		case BPF_AND:
			if (k == 0) return cval(0);
			if (k == -1) return a;
			break;
		case BPF_LSH: case BPF_RSH: case BPF_ARSH:
			k &= 63;                           /* as the BPF machine masks */
			if (k == 0) return a;
			b = cval(k);
			break;
		}
		/* x * 2^n and unsigned x / 2^n are shifts, as any compiler would do */
		if ((op->alu == BPF_MUL || op->alu == BPF_DIV) && k > 0 && !(k & (k - 1))) {
			int sh = __builtin_ctzll((uint64_t)k);
			return rval(alu(l, op->alu == BPF_MUL ? BPF_LSH : BPF_RSH, a, cval(sh)));
		}
		if (op->alu == BPF_MOD && k > 0 && !(k & (k - 1)))
			return rval(alu(l, BPF_AND, a, cval(k - 1)));
		if (op->alu == BPF_SUB && fits32(-k))
			return rval(alu(l, BPF_ADD, a, cval(-k)));
	}
	return rval(alu(l, op->alu, a, b));
}

static const struct arith_op *find_arith(const char *h)
{
	for (size_t i = 0; h && i < sizeof(arith_ops) / sizeof(arith_ops[0]); i++)
		if (!strcmp(arith_ops[i].name, h))
			return &arith_ops[i];
	return NULL;
}

static int f_arith(struct lw *l, struct kl_node *n, struct val *out)
{
	const struct arith_op *op = find_arith(n->items[0]->str);
	bool binary = op->alu == BPF_DIV || op->alu == BPF_MOD || op->alu == BPF_LSH ||
		      op->alu == BPF_RSH || op->alu == BPF_ARSH;
	if (arity(l, n, binary ? 2 : (op->alu == BPF_SUB ? 1 : 0), binary ? 2 : UINT32_MAX))
		return -1;
	if (n->nitems == 1) {
		*out = cval(op->alu == BPF_MUL ? 1 : op->alu == BPF_AND ? -1 : 0);
		return 0;
	}
	struct val acc;
	if (lower(l, n->items[1], &acc))
		return -1;
	if (n->nitems == 2) {
		if (op->alu == BPF_SUB) {
			if (acc.kind == V_CONST) {
				*out = cval(kl_fold(BPF_SUB, 0, acc.c));
				return 0;
			}
			struct kl_ir_ins *i = emit(l, IR_NEG);
			i->a = acc.r;
			i->d = vreg(l);
			*out = rval(i->d);
			return 0;
		}
		*out = acc;
		return 0;
	}
	for (uint32_t k = 2; k < n->nitems; k++) {
		struct val b;
		if (lower(l, n->items[k], &b))
			return -1;
		/* pointer plus or minus an integer is still a pointer */
		bool ptr = (op->alu == BPF_ADD && (acc.is_ptr || b.is_ptr)) || (op->alu == BPF_SUB && acc.is_ptr && !b.is_ptr);
		/* p + K keeps track of p's alignment, for memset and memcpy */
		uint8_t mis = acc.is_ptr && b.kind == V_CONST && (op->alu == BPF_ADD || op->alu == BPF_SUB)
				      ? (uint8_t)((acc.misalign + (op->alu == BPF_ADD ? b.c : -b.c)) & 7)
				      : b.is_ptr && acc.kind == V_CONST ? (uint8_t)((b.misalign + acc.c) & 7) : 0;
		acc = arith2(l, op, acc, b);
		acc.is_ptr = ptr;
		acc.misalign = ptr ? mis : 0;
	}
	if (acc.is_var)
		acc = rval(fresh_copy(l, acc));
	*out = acc;
	return 0;
}

static int f_lognot(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 1, 1) || lower(l, n->items[1], out))
		return -1;
	if (out->kind == V_CONST)
		out->c = ~out->c;
	else
		*out = rval(alu(l, BPF_XOR, *out, cval(-1)));
	return 0;
}

static int f_cmp(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 2, 2))
		return -1;
	return bool_value(l, n, out);
}

/* ---- casts and byte order ---- */

static struct val truncate(struct lw *l, struct val v, uint32_t size, bool sign)
{
	if (size >= 8)
		return v;
	int bits = (int)size * 8;
	if (v.kind == V_CONST) {
		uint64_t m = (1ULL << bits) - 1, x = (uint64_t)v.c & m;
		if (sign && (x >> (bits - 1)))
			x |= ~m;
		return cval((int64_t)x);
	}
	if (sign) {
		kl_vreg r = alu(l, BPF_LSH, v, cval(64 - bits));
		return rval(alu(l, BPF_ARSH, rval(r), cval(64 - bits)));
	}
	if (size == 4) {
		struct kl_ir_ins *i = emit(l, IR_ALU32);
		i->alu = BPF_MOV;
		i->a = v.r;
		i->d = vreg(l);
		return rval(i->d);
	}
	return rval(alu(l, BPF_AND, v, cval((int64_t)((1ULL << bits) - 1))));
}

static int f_cast(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 2, 2))
		return -1;
	struct kl_type *t = n->items[1]->kind == KL_N_SYM ? kl_type_builtin(n->items[1]->str) : NULL;
	if (!t || t->kind != KL_T_INT)
		return err_form(l, n->items[1], "%s needs an integer type (u8 u16 u32 u64 i8 i16 i32 i64): %s", "cast");
	if (lower(l, n->items[2], out))
		return -1;
	*out = truncate(l, *out, t->size, t->is_signed);
	return 0;
}

struct swap_op { const char *name; uint8_t bits; };
static const struct swap_op swap_ops[] = {
	{ "ntohs", 16 }, { "htons", 16 }, { "ntohl", 32 }, { "htonl", 32 }, { "bswap16", 16 },
	{ "bswap32", 32 }, { "bswap64", 64 }, { "ntohll", 64 }, { "htonll", 64 }, { "be64toh", 64 },
};

static int f_swap(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 1, 1) || lower(l, n->items[1], out))
		return -1;
	uint8_t bits = 64;
	for (size_t i = 0; i < sizeof(swap_ops) / sizeof(swap_ops[0]); i++)
		if (!strcmp(swap_ops[i].name, n->items[0]->str))
			bits = swap_ops[i].bits;
	if (out->kind == V_CONST) {
		out->c = (int64_t)kl_bswap((uint64_t)out->c, bits);
		return 0;
	}
	struct kl_ir_ins *i = emit(l, IR_END);
	i->size = bits;
	i->a = out->r;
	i->d = vreg(l);
	*out = rval(i->d);
	return 0;
}

/* ---- memory ---- */

/* The base register of an access at base + *off; an offset beyond the instruction's 16 bits
 * is added to the base first (and *off becomes 0). */
static kl_vreg access_base(struct lw *l, struct val base, int64_t *off)
{
	kl_vreg rb = reg_of(l, base);
	if (*off < INT16_MIN || *off > INT16_MAX) {
		rb = alu(l, BPF_ADD, rval(rb), cval(*off));
		*off = 0;
	}
	return rb;
}

/* d = *(size *)(base + off), with sign extension for signed types. */
static struct val load_at(struct lw *l, struct val base, int64_t off, const struct kl_type *t)
{
	kl_vreg rb = access_base(l, base, &off);
	struct kl_ir_ins *i = emit(l, IR_LOAD);
	i->a = rb;
	i->off = (int32_t)off;
	i->size = (uint8_t)(t->kind == KL_T_INT ? t->size : 8);
	i->d = vreg(l);
	struct val v = rval(i->d);
	v.is_ptr = t->kind == KL_T_PTR;
	if (t->kind == KL_T_INT && t->is_signed && t->size < 8)
		v = truncate(l, v, t->size, true);
	return v;
}

/* *(size *)(base or stack slot + off) = v; a constant that fits 32 bits is the immediate. */
static void store_to(struct lw *l, kl_vreg base, uint32_t slot, int32_t off, uint32_t size, struct val v)
{
	kl_vreg rv = v.kind == V_CONST && fits32(v.c) ? 0 : reg_of(l, v);
	struct kl_ir_ins *i = emit(l, IR_STORE);
	i->a = base;
	i->slot = slot;
	i->off = off;
	i->size = (uint8_t)size;
	if (rv) {
		i->b = rv;
	} else {
		i->has_imm = true;
		i->imm = v.c;
	}
}

static void store_at(struct lw *l, struct val base, int64_t off, uint32_t size, struct val v)
{
	kl_vreg rb = access_base(l, base, &off);
	store_to(l, rb, 0, (int32_t)off, size, v);
}

/* Zero bytes [from, size) of a stack slot with the widest aligned stores. */
static void zero_slot(struct lw *l, uint32_t s, uint32_t from, uint32_t size)
{
	for (uint32_t off = from; off < size;) {
		uint32_t w = 8;
		while (w > 1 && (off % w || off + w > size))
			w /= 2;
		store_to(l, 0, s, (int32_t)off, w, cval(0));
		off += w;
	}
}

/* Store v into a fresh stack slot of `size` bytes (the rest zeroed) and return the slot. */
static uint32_t spill_value(struct lw *l, struct val v, uint32_t size)
{
	uint32_t s = slot(l, size, size >= 8 ? 8 : size);
	l->f->slots[s].temp = true;
	uint32_t first = size >= 8 ? 8 : size;
	if (first == 3 || first == 5 || first == 6 || first == 7) {
		zero_slot(l, s, 0, size);
		first = first >= 4 ? 4 : 2;
	}
	store_to(l, 0, s, 0, first, v);
	if (size > 8)
		zero_slot(l, s, 8, size);
	return s;
}

static kl_vreg slot_addr(struct lw *l, uint32_t s)
{
	struct kl_ir_ins *i = emit(l, IR_ADDR);
	i->slot = s;
	i->d = vreg(l);
	return i->d;
}

static int mem_type(struct lw *l, struct kl_node *n, struct kl_type **t)
{
	*t = n->kind == KL_N_SYM || n->kind == KL_N_KEY ? kl_type_builtin(n->str) : NULL;
	if (!*t)
		return err_form(l, n, "%s needs a scalar type (u8 u16 u32 u64 i8 i16 i32 i64): %s", "load/store");
	return 0;
}

/* PTR and OFFSET: a constant offset folds into the instruction. */
static int address(struct lw *l, struct kl_node *pn, struct kl_node *on, struct val *base, int64_t *off)
{
	struct val o;
	if (lower(l, pn, base) || (on && lower(l, on, &o)))
		return -1;
	*off = 0;
	if (!on)
		return 0;
	if (o.kind == V_CONST)
		*off = o.c;
	else
		*base = rval(alu(l, BPF_ADD, *base, o));
	return 0;
}

static int f_load(struct lw *l, struct kl_node *n, struct val *out)
{
	struct kl_type *t;
	struct val base;
	int64_t off;
	if (arity(l, n, 2, 3) || mem_type(l, n->items[1], &t) ||
	    address(l, n->items[2], n->nitems == 4 ? n->items[3] : NULL, &base, &off))
		return -1;
	*out = load_at(l, base, off, t);
	return 0;
}

static int f_store(struct lw *l, struct kl_node *n, struct val *out)
{
	struct kl_type *t;
	struct val base, v;
	int64_t off;
	if (arity(l, n, 4, 4) || mem_type(l, n->items[1], &t) ||
	    address(l, n->items[2], n->items[3], &base, &off) || lower(l, n->items[4], &v))
		return -1;
	store_at(l, base, off, t->size, v);
	*out = cval(0);
	return 0;
}

/* A zeroed stack buffer, 8-byte aligned: (stack-buffer SIZE), (make-stack BUF SIZE),
 * (struct-alloc SIZE) and (make-S). */
static int stack_alloc(struct lw *l, struct kl_node *at, int64_t size, struct val *out)
{
	if (size <= 0 || size > 512)
		return kl_error(l->c->d, at->span, "stack buffer of %lld bytes in '%s' does not fit the 512-byte BPF stack",
				(long long)size, l->f->name);
	uint32_t s = slot(l, (uint32_t)size, 8);
	zero_slot(l, s, 0, (uint32_t)size);
	*out = pval(slot_addr(l, s));
	return 0;
}

static int f_stack_buffer(struct lw *l, struct kl_node *n, struct val *out)
{
	int64_t size;
	if (arity(l, n, 1, !strcmp(n->items[0]->str, "struct-alloc") ? 1 : 2) ||
	    kl_const_eval(l->c, n->items[n->nitems - 1], &size))
		return -1;
	return stack_alloc(l, n->items[n->nitems - 1], size, out);
}

/* A tracepoint's field, from its format file in tracefs: offset, size, signedness. */
static int tracepoint_field(struct lw *l, struct kl_node *fn, const char *name, struct kl_field *out, bool *sign)
{
	const char *tp = strchr(l->section, '/');
	char path[512];
	struct kl_tp_field *fs;
	uint32_t nf;
	if (!tp)
		return kl_error(l->c->d, fn->span, "section '%s' names no tracepoint", l->section);
	if (kl_tracepoint_format(l->c->a, tp + 1, &fs, &nf, path, sizeof(path)))
		return kl_error(l->c->d, fn->span, "%s", path);
	const char *want = kl_mangle(l->c->a, name);
	for (uint32_t i = 0; i < nf; i++) {
		const struct kl_tp_field *f = &fs[i];
		if (strcmp(f->name, want) || f->count || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
			continue;
		if (f->offset < 8)
			return kl_error(l->c->d, fn->span, "tracepoint field '%s' is one of the common fields the kernel "
					"does not let BPF programs read; use (get-current-pid-tgid) and friends", name);
		out->offset = f->offset;
		out->type = kl_type_sized(l->c->a, f->size);
		*sign = f->is_signed && f->size < 8;
		return 0;
	}
	return kl_error(l->c->d, fn->span, "tracepoint '%s' has no scalar field '%s' (see %s)", tp + 1, name, path);
}

/* Where (ctx ...) reads or writes: (ctx FIELD), (ctx FIELD INDEX) for an array field such
 * as remote-ip6 (the row "remote-ip6-2"), or (ctx TYPE OFFSET), Whistler's raw form. */
struct ctx_ref {
	int32_t off;
	struct kl_type type;
	const struct kl_ctx_field *cf;     /* NULL for a raw offset or a tracepoint field */
};

static int ctx_resolve(struct lw *l, struct kl_node *n, uint32_t nargs, struct ctx_ref *out)
{
	struct kl_node **a = n->items + 1;
	memset(out, 0, sizeof(*out));
	if (!l->pt)
		return kl_error(l->c->d, n->span, "(ctx ...) is only available in a defprog; pass ctx to the function");
	const struct kl_type *raw = a[0]->kind == KL_N_SYM ? kl_type_builtin(a[0]->str) : NULL;
	if (raw && raw->kind == KL_T_INT) {
		int64_t off;
		if (nargs != 2)
			return err_form(l, n, "%s takes TYPE OFFSET: %s", "(ctx TYPE OFFSET)");
		if (kl_const_eval(l->c, a[1], &off))
			return -1;
		if (off < 0 || off > 4096 || off % raw->size)
			return kl_error(l->c->d, a[1]->span, "context offset %lld is not an aligned offset for a %s",
					(long long)off, raw->name);
		out->off = (int32_t)off;
		out->type = *raw;
		/* a raw read of data/data-end is the same pointer as by name */
		if (l->pt->ctx_fields)
			out->cf = kl_ctx_field_at(l->pt->ctx_fields, (uint16_t)off, raw->size);
		return 0;
	}
	const char *name = a[0]->kind == KL_N_SYM || a[0]->kind == KL_N_KEY ? a[0]->str : "";
	if (nargs == 2) {
		int64_t idx;
		if (kl_const_eval(l->c, a[1], &idx))
			return -1;
		name = kl_arena_printf(l->c->a, "%s-%lld", name, (long long)idx);
	} else if (nargs != 1) {
		return err_form(l, n, "%s takes FIELD, FIELD INDEX or TYPE OFFSET: %s", "ctx");
	}
	if (l->pt->prog_type == BPF_PROG_TYPE_TRACEPOINT) {
		struct kl_field tf = { 0 };
		bool sign = false;
		if (tracepoint_field(l, a[0], name, &tf, &sign))
			return -1;
		out->off = (int32_t)tf.offset;
		out->type = *tf.type;
		out->type.is_signed = sign;
		return 0;
	}
	const struct kl_ctx_field *cf = l->pt->ctx_fields ? kl_ctx_field_find(l->pt->ctx_fields, name) : NULL;
	if (!cf) {
		if (!l->pt->ctx_fields)
			return kl_error(l->c->d, a[0]->span, "a :%s program has no context fields by name; "
					"use (ctx TYPE OFFSET)", l->pt->keyword);
		return kl_error(l->c->d, a[0]->span, "unknown context field '%s' for a :%s program (struct %s: %s)",
				name, l->pt->keyword, l->pt->ctx_fields, kl_ctx_field_names(l->c->a, l->pt->ctx_fields));
	}
	out->cf = cf;
	out->off = cf->offset;
	out->type = *kl_type_sized(l->c->a, cf->size);
	return 0;
}

/* (ctx FIELD), (ctx FIELD INDEX), (ctx TYPE OFFSET) */
static int f_ctx(struct lw *l, struct kl_node *n, struct val *out)
{
	struct ctx_ref r;
	if (arity(l, n, 1, 2) || ctx_resolve(l, n, n->nitems - 1, &r))
		return -1;
	*out = load_at(l, rval(l->ctx), r.off, &r.type);
	out->is_ptr = r.cf && r.cf->is_pointer;
	return 0;
}

/* (ctx-load TYPE OFFSET): Whistler's older spelling of (ctx TYPE OFFSET) */
static int f_ctx_load(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 2, 2))
		return -1;
	return f_ctx(l, n, out);
}

/* (setf (ctx ...) V) */
static int ctx_store(struct lw *l, struct kl_node *p, struct val v)
{
	struct ctx_ref r;
	if (arity(l, p, 1, 2) || ctx_resolve(l, p, p->nitems - 1, &r))
		return -1;
	if (r.cf && !r.cf->writable)
		return kl_error(l->c->d, p->span, "context field '%s' cannot be written in a :%s program",
				r.cf->name, l->pt->keyword);
	store_at(l, rval(l->ctx), r.off, r.type.size, v);
	return 0;
}

/* (ctx-store TYPE OFFSET V) */
static int f_ctx_store(struct lw *l, struct kl_node *n, struct val *out)
{
	struct val v;
	if (arity(l, n, 3, 3) || lower(l, n->items[3], &v))
		return -1;
	struct kl_node place = *n;
	place.nitems = 3;
	*out = cval(0);
	return ctx_store(l, &place, v);
}

/* (ctx-ptr): the context pointer itself, for helpers that take it */
static int f_ctx_ptr(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 0, 0))
		return -1;
	if (!l->pt)
		return kl_error(l->c->d, n->span, "(ctx-ptr) is only available in a defprog; pass ctx to the function");
	*out = pval(l->ctx);
	return 0;
}

/* (pass-action): the return value that lets a packet through in this program type. The
 * packet library returns it when a packet is too short for the headers it parses. */
static int f_pass_action(struct lw *l, struct kl_node *n, struct val *out)
{
	static const struct { uint32_t type; int64_t v; } pass[] = {
		{ BPF_PROG_TYPE_XDP, XDP_PASS }, { BPF_PROG_TYPE_SCHED_CLS, TC_ACT_OK },
		{ BPF_PROG_TYPE_SCHED_ACT, TC_ACT_OK }, { BPF_PROG_TYPE_CGROUP_SKB, 1 },
		{ BPF_PROG_TYPE_SK_SKB, SK_PASS }, { BPF_PROG_TYPE_SOCKET_FILTER, -1 },
	};
	if (arity(l, n, 0, 0))
		return -1;
	for (size_t i = 0; l->pt && i < sizeof(pass) / sizeof(pass[0]); i++)
		if (pass[i].type == l->pt->prog_type) {
			*out = cval(pass[i].v);
			return 0;
		}
	return kl_error(l->c->d, n->span, "(pass-action) needs a packet program (xdp, tc, socket-filter, cgroup-skb); "
			"this is %s", l->pt ? l->pt->keyword : "a defun");
}

/* ---- maps ---- */

static struct kl_mapdef *map_arg(struct lw *l, struct kl_node *n)
{
	struct kl_mapdef *m = n->kind == KL_N_SYM ? kl_map_lookup(l->c, n->str) : NULL;
	if (!m) {
		char buf[128];
		kl_node_str(n, buf, sizeof(buf));
		kl_error(l->c->d, n->span, "unknown map '%s'", buf);
	}
	return m;
}

static kl_vreg map_ref(struct lw *l, struct kl_mapdef *m)
{
	m->used = true;
	struct kl_ir_ins *i = emit(l, IR_LDMAP);
	i->imm = m - l->c->maps.items;
	i->d = vreg(l);
	return i->d;
}

/* A key or value argument: integers go to the stack at the map's size, wider ones are
 * pointers. The address is taken only when the call is made, to keep registers free. */
struct mop {
	uint32_t slot;        /* 0: v is a pointer */
	struct val v;
};

/* The -ptr forms (map-lookup-ptr, map-update-ptr, map-delete-ptr) take keys and values by
 * address whatever they look like. */
static bool ptr_form(const struct kl_node *n)
{
	const char *h = kl_head(n);
	size_t k = h ? strlen(h) : 0;
	return k > 4 && !strcmp(h + k - 4, "-ptr");
}

static int map_operand(struct lw *l, struct kl_node *n, uint32_t size, bool by_ptr, struct mop *out)
{
	if (lower(l, n, &out->v))
		return -1;
	/* a wide key given as a computed value is taken as its address (a pointer this pass
	 * cannot see as one, a defun argument say); a constant is stored, zero-extended */
	bool ptr = by_ptr || out->v.is_ptr || (size > 8 && out->v.kind == V_REG);
	out->slot = ptr ? 0 : spill_value(l, out->v, size);
	return 0;
}

static kl_vreg mop_reg(struct lw *l, struct mop m)
{
	return m.slot ? slot_addr(l, m.slot) : reg_of(l, m.v);
}

static kl_vreg call(struct lw *l, uint32_t helper, kl_vreg *args, uint32_t nargs)
{
	struct kl_ir_ins *i = emit(l, IR_CALL);
	i->imm = helper;
	i->nargs = (uint8_t)nargs;
	for (uint32_t k = 0; k < nargs; k++)
		i->args[k] = args[k];
	i->d = vreg(l);
	return i->d;
}

static int lookup_ptr(struct lw *l, struct kl_node *mn, struct kl_node *kn, bool by_ptr, struct kl_mapdef **mp,
		      kl_vreg *out, struct mop *keyp)
{

	struct kl_mapdef *m = map_arg(l, mn);
	if (!m)
		return -1;
	if (m->mt->no_key_value)
		return kl_error(l->c->d, mn->span, "map '%s' is a :%s map; it has no elements to look up",
				m->name, m->mt->keyword);
	struct mop key;
	if (map_operand(l, kn, m->key_size, by_ptr, &key))
		return -1;
	kl_vreg args[2];
	args[0] = map_ref(l, m);
	args[1] = mop_reg(l, key);
	*out = call(l, BPF_FUNC_map_lookup_elem, args, 2);
	*mp = m;
	if (keyp)
		*keyp = key;
	return 0;
}

static int f_map_lookup(struct lw *l, struct kl_node *n, struct val *out)
{
	struct kl_mapdef *m;
	kl_vreg p;
	if (arity(l, n, 2, 2) || lookup_ptr(l, n->items[1], n->items[2], ptr_form(n), &m, &p, NULL))
		return -1;
	*out = pval(p);
	return 0;
}

static uint32_t value_width(const struct kl_mapdef *m)
{
	uint32_t s = m->value_size;
	return s >= 8 ? 8 : s >= 4 ? 4 : s >= 2 ? 2 : 1;
}

static int f_getmap(struct lw *l, struct kl_node *n, struct val *out)
{
	struct kl_mapdef *m;
	kl_vreg p;
	if (arity(l, n, 2, 2) || lookup_ptr(l, n->items[1], n->items[2], false, &m, &p, NULL))
		return -1;
	/* a map of structs gives the value's address, for the struct's accessors */
	if (m->m.value && m->m.value->kind == KL_T_STRUCT) {
		*out = pval(p);
		return 0;
	}
	kl_vreg r = vreg(l);
	uint32_t lnull = label(l), lend = label(l);
	branch(l, BPF_JEQ, rval(p), cval(0), lnull);
	struct kl_ir_ins *i = emit(l, IR_LOAD);
	i->a = p;
	i->size = (uint8_t)value_width(m);
	i->d = r;
	jump(l, lend);
	place(l, lnull);
	move_to(l, r, cval(0));
	place(l, lend);
	*out = rval(r);
	return 0;
}

static kl_vreg update_call(struct lw *l, struct kl_mapdef *m, struct mop key, struct mop value, struct val flags)
{
	kl_vreg args[4];
	args[0] = map_ref(l, m);
	args[1] = mop_reg(l, key);
	args[2] = mop_reg(l, value);
	args[3] = reg_of(l, flags);
	return call(l, BPF_FUNC_map_update_elem, args, 4);
}

/* Update with VALUE from the node vn, or the integer *vv. */
static int map_update(struct lw *l, struct kl_mapdef *m, struct kl_node *kn, struct kl_node *vn,
		      struct val *vv, struct val flags, bool by_ptr, struct val *out)
{
	struct mop key, value;
	if (map_operand(l, kn, m->key_size, by_ptr, &key))
		return -1;
	if (vn) {
		if (map_operand(l, vn, m->value_size, by_ptr, &value))
			return -1;
	} else {
		value.v = *vv;
		/* (setf (getmap M K) p) of a struct-valued map copies the struct p points at */
		bool ptr = vv->is_ptr || (m->value_size > 8 && vv->kind == V_REG);
		value.slot = ptr ? 0 : spill_value(l, *vv, m->value_size);
	}
	*out = rval(update_call(l, m, key, value, flags));
	return 0;
}

static int f_map_update(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 3, 4))
		return -1;
	struct kl_mapdef *m = map_arg(l, n->items[1]);
	struct val flags = cval(BPF_ANY);
	if (!m)
		return -1;
	if (m->mt->no_key_value)
		return kl_error(l->c->d, n->items[1]->span, "map '%s' is a :%s map; use its own helpers",
				m->name, m->mt->keyword);
	if (n->nitems == 5 && lower(l, n->items[4], &flags))
		return -1;
	return map_update(l, m, n->items[2], n->items[3], NULL, flags, ptr_form(n), out);
}

static int f_remmap(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 2, 2))
		return -1;
	struct kl_mapdef *m = map_arg(l, n->items[1]);
	struct mop key;
	if (!m || map_operand(l, n->items[2], m->key_size, ptr_form(n), &key))
		return -1;
	kl_vreg args[2];
	args[0] = map_ref(l, m);
	args[1] = mop_reg(l, key);
	*out = rval(call(l, BPF_FUNC_map_delete_elem, args, 2));
	return 0;
}

/* ---- places: setf, incf, decf ---- */

/* incf/decf/atomic add on (getmap M K): add in place when present, insert when a hash map
 * lacks the key. */
static int getmap_add(struct lw *l, struct kl_node *place_n, struct val delta, struct val *out)
{
	struct kl_mapdef *m;
	kl_vreg p;
	struct mop key;
	if (arity(l, place_n, 2, 2) || lookup_ptr(l, place_n->items[1], place_n->items[2], false, &m, &p, &key))
		return -1;
	uint32_t lnull = label(l), lend = label(l);
	uint32_t w = value_width(m);
	branch(l, BPF_JEQ, rval(p), cval(0), lnull);
	if (!m->mt->percpu && (w == 8 || w == 4)) {
		kl_vreg d = reg_of(l, delta);
		struct kl_ir_ins *i = emit(l, IR_XADD);
		i->a = p;
		i->b = d;
		i->size = (uint8_t)w;
	} else {
		struct kl_ir_ins *i = emit(l, IR_LOAD);
		i->a = p;
		i->size = (uint8_t)w;
		i->d = vreg(l);
		kl_vreg sum = alu(l, BPF_ADD, rval(i->d), delta);
		struct kl_ir_ins *s = emit(l, IR_STORE);
		s->a = p;
		s->b = sum;
		s->size = (uint8_t)w;
	}
	/* an array has every key below max-entries and no other: nothing to insert */
	bool array = m->m.type == BPF_MAP_TYPE_ARRAY || m->m.type == BPF_MAP_TYPE_PERCPU_ARRAY;
	if (!array) {
		jump(l, lend);
		place(l, lnull);
		struct mop value = { spill_value(l, delta, m->value_size), delta };
		update_call(l, m, key, value, cval(BPF_NOEXIST));
	} else {
		place(l, lnull);
	}
	place(l, lend);
	*out = cval(0);
	return 0;
}

static int assign(struct lw *l, struct kl_node *p, struct val *v, const char *what);
static int field_ref(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *base, int64_t *off,
		     const struct kl_type **t);

static int f_setf(struct lw *l, struct kl_node *n, struct val *out)
{
	if ((n->nitems - 1) % 2 || n->nitems < 3)
		return err_form(l, n, "%s takes PLACE VALUE pairs: %s", n->items[0]->str);
	*out = cval(0);
	for (uint32_t i = 1; i + 1 < n->nitems; i += 2) {
		struct val v;
		if (lower(l, n->items[i + 1], &v) || assign(l, n->items[i], &v, n->items[0]->str))
			return -1;
		*out = v;
	}
	if (out->is_var)
		*out = rval(fresh_copy(l, *out));
	return 0;
}

static int f_incdec(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 1, 2))
		return -1;
	bool dec = !strcmp(n->items[0]->str, "decf");
	struct val delta = cval(1), cur;
	if (n->nitems == 3 && lower(l, n->items[2], &delta))
		return -1;
	struct kl_node *p = n->items[1];
	if (kl_head(p) && !strcmp(kl_head(p), "getmap")) {
		if (dec)
			delta = delta.kind == V_CONST ? cval(kl_fold(BPF_SUB, 0, delta.c)) : arith2(l, find_arith("-"), cval(0), delta);
		return getmap_add(l, p, delta, out);
	}
	if (lower(l, p, &cur))   /* the place's current value */
		return -1;
	struct val nv = arith2(l, find_arith(dec ? "-" : "+"), cur, delta);
	if (assign(l, p, &nv, n->items[0]->str))
		return -1;
	*out = nv.is_var ? rval(fresh_copy(l, nv)) : nv;
	return 0;
}

/* Store v into the place p; `what` names the form (setf, incf, decf) in errors. */
/* The form's value becomes what was stored (a typed variable's truncated value). */
static int assign(struct lw *l, struct kl_node *p, struct val *vp, const char *what)
{
	struct val v = *vp;
	if (p->kind == KL_N_SYM) {
		struct binding *b = find_var(l, p->str);
		if (!b)
			return kl_error(l->c->d, p->span, "cannot assign '%s': it is not a variable", p->str);
		if (!b->mutable)
			return kl_error(l->c->d, p->span, "internal: variable '%s' was not marked mutable", p->str);
		if (b->type && b->type->kind == KL_T_INT && b->type->size < 8)
			*vp = v = truncate(l, v, b->type->size, b->type->is_signed);
		move_to(l, b->v.r, v);
		return 0;
	}
	const char *h = kl_head(p);
	if (h && !strcmp(h, "getmap")) {
		if (arity(l, p, 2, 2))
			return -1;
		struct kl_mapdef *m = map_arg(l, p->items[1]);
		struct val r;
		if (!m)
			return -1;
		return map_update(l, m, p->items[2], NULL, &v, cval(BPF_ANY), false, &r);
	}
	if (h && !strcmp(h, "load")) {
		struct kl_type *t;
		struct val base;
		int64_t off;
		if (arity(l, p, 2, 3) || mem_type(l, p->items[1], &t) ||
		    address(l, p->items[2], p->nitems == 4 ? p->items[3] : NULL, &base, &off))
			return -1;
		store_at(l, base, off, t->size, v);
		return 0;
	}
	if (h && !strcmp(h, "ctx"))
		return ctx_store(l, p, v);
	const struct kl_accessor *acc = h ? kl_accessor_lookup(l->c, h) : NULL;
	if (acc) {
		struct val base;
		int64_t off;
		const struct kl_type *t;
		if (field_ref(l, p, acc, &base, &off, &t))
			return -1;
		if (t->kind != KL_T_INT && t->kind != KL_T_PTR)
			return kl_error(l->c->d, p->span, "field '%s' is not a scalar; assign its elements: (setf (%s p INDEX) v)",
					acc->field->name, acc->name);
		store_at(l, base, off, t->size, v);
		return 0;
	}
	return err_form(l, p, "%s: not a place (a variable, (getmap M K), (load ...), (ctx F) or a struct accessor): %s",
			what);
}

/* The address and type of (S-FIELD p) or, for an array field, (S-FIELD p INDEX): a constant
 * index folds into the offset, a computed one is scaled and added (the verifier checks it). */
static int field_ref(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *base, int64_t *off,
		     const struct kl_type **t)
{
	const struct kl_field *f = acc->field;
	bool array = f->type->kind == KL_T_ARRAY;
	if (arity(l, n, 1, array ? 2 : 1) || lower(l, n->items[1], base))
		return -1;
	*off = f->offset;
	*t = f->type;
	if (n->nitems == 3) {
		struct val ix;
		if (lower(l, n->items[2], &ix))
			return -1;
		*t = f->type->elem;
		if (ix.kind == V_CONST) {
			if (ix.c < 0 || (uint64_t)ix.c >= f->type->count)
				return kl_error(l->c->d, n->items[2]->span, "index %lld is outside %s (%u elements)",
						(long long)ix.c, acc->name, f->type->count);
			*off += ix.c * (*t)->size;
		} else {
			struct val scaled = arith2(l, find_arith("*"), ix, cval((*t)->size));
			*base = rval(alu(l, BPF_ADD, *base, scaled));
		}
	}
	return 0;
}

/* The pointer base + off, knowing its alignment. */
static struct val ptr_plus(struct lw *l, struct val base, int64_t off)
{
	struct val p = off ? pval(alu(l, BPF_ADD, base, cval(off))) : base;
	p.is_ptr = true;
	p.misalign = (uint8_t)((base.misalign + off) & 7);
	return p;
}

/* (S-FIELD-ptr p): the address of a field, to hand to a helper */
static int f_field_ptr(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *out)
{
	struct val base;
	if (arity(l, n, 1, 1) || lower(l, n->items[1], &base))
		return -1;
	*out = ptr_plus(l, base, acc->field->offset);
	return 0;
}

static int f_make_struct(struct lw *l, struct kl_node *n, struct kl_structdef *sd, struct val *out)
{
	if (arity(l, n, 0, 0))
		return -1;
	return stack_alloc(l, n, sd->type->size, out);
}

static int f_accessor(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *out)
{
	struct val base;
	int64_t off;
	const struct kl_type *t;
	if (field_ref(l, n, acc, &base, &off, &t))
		return -1;
	if (t->kind == KL_T_INT || t->kind == KL_T_PTR) {
		*out = load_at(l, base, off, t);
		return 0;
	}
	/* arrays and nested structs (an element of an array of structs too): the address */
	*out = ptr_plus(l, base, off);
	return 0;
}

/* ---- calls ---- */

/* Helpers whose last argument is a flags word that may be left out (0), as Whistler allows:
 * (ringbuf-reserve MAP SIZE), (ringbuf-submit P). */
static const uint32_t flags_optional[] = {
	BPF_FUNC_ringbuf_reserve, BPF_FUNC_ringbuf_submit, BPF_FUNC_ringbuf_discard, BPF_FUNC_ringbuf_output,
};

/* The struct a size argument names, as in (ringbuf-output MAP P (sizeof EVENT) 0): NULL for
 * any other size. */
static struct kl_type *sized_struct(struct lw *l, const struct kl_node *n)
{
	if (n->kind != KL_N_LIST || n->nitems != 2 || n->items[0]->kind != KL_N_SYM ||
	    (strcmp(n->items[0]->str, "sizeof") && strcmp(n->items[0]->str, "event-size")))
		return NULL;
	struct kl_type *t = kl_type_parse(l->c, n->items[1]);
	return t && t->kind == KL_T_STRUCT ? t : NULL;
}

/* The size argument of the helpers that send a record through a buffer map, so that the map
 * is described (kiln.event decl tag) by the struct the size names. */
static const struct {
	uint32_t helper;
	uint32_t size_arg;
} record_size_args[] = {
	{ BPF_FUNC_ringbuf_output, 2 },
	{ BPF_FUNC_perf_event_output, 4 },
};

static int f_helper(struct lw *l, struct kl_node *n, const struct kl_helper *h, struct val *out)
{
	uint32_t nargs = n->nitems - 1, min = kl_helper_min_args(h);
	bool pad = false;
	for (size_t i = 0; i < sizeof(flags_optional) / sizeof(flags_optional[0]); i++)
		if (flags_optional[i] == h->id && nargs == (uint32_t)h->nargs - 1) {
			min = nargs;
			pad = true;
		}
	if (arity(l, n, min, h->nargs))
		return -1;
	kl_vreg args[5];
	struct kl_mapdef *map = NULL;
	for (uint32_t k = 0; k < nargs; k++) {
		struct kl_node *a = n->items[k + 1];
		if (h->args[k] == KL_ARG_MAP) {
			struct kl_mapdef *m = map = map_arg(l, a);
			if (!m)
				return -1;
			args[k] = map_ref(l, m);
			continue;
		}
		struct val v;
		if (lower(l, a, &v))
			return -1;
		args[k] = reg_of(l, v);
	}
	if (pad)
		args[nargs++] = reg_of(l, cval(0));
	for (size_t i = 0; map && !map->m.event && i < sizeof(record_size_args) / sizeof(record_size_args[0]); i++)
		if (record_size_args[i].helper == h->id && record_size_args[i].size_arg < n->nitems - 1u)
			map->m.event = sized_struct(l, n->items[record_size_args[i].size_arg + 1]);
	*out = rval(call(l, h->id, args, nargs));
	out->is_ptr = h->ret_ptr;
	return 0;
}

static int f_funcall(struct lw *l, struct kl_node *n, struct kl_fundef *fd, struct val *out)
{
	if (arity(l, n, fd->nparams, fd->nparams))
		return -1;
	kl_vreg args[5];
	for (uint32_t k = 0; k < fd->nparams; k++) {
		struct val v;
		if (lower(l, n->items[k + 1], &v))
			return -1;
		args[k] = reg_of(l, v);
	}
	struct kl_ir_ins *i = emit(l, IR_CALLF);
	i->imm = fd - l->c->funs.items;
	i->nargs = (uint8_t)fd->nparams;
	memcpy(i->args, args, sizeof(kl_vreg) * fd->nparams);
	i->d = vreg(l);
	*out = rval(i->d);
	return 0;
}

static int f_const_form(struct lw *l, struct kl_node *n, struct val *out)
{
	int64_t v;
	if (kl_const_eval(l->c, n, &v))
		return -1;
	*out = cval(v);
	return 0;
}

/* (atomic-add PTR OFFSET VALUE [TYPE]), Whistler's form: lock *(TYPE *)(PTR + OFFSET) += VALUE,
 * TYPE u64 by default. kiln's shorter (atomic-add PTR VALUE [TYPE]) is also accepted: a third
 * argument that names a type marks that form. */
static int f_atomic_add(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 2, 4))
		return -1;
	bool whistler = n->nitems == 5 || (n->nitems == 4 && !kl_type_builtin(n->items[3]->kind == KL_N_SYM ?
										   n->items[3]->str : ""));
	struct kl_node *pn = n->items[1], *on = whistler ? n->items[2] : NULL;
	struct kl_node *vn = n->items[whistler ? 3 : 2];
	struct kl_node *tn = n->nitems == (whistler ? 5u : 4u) ? n->items[n->nitems - 1] : NULL;
	struct kl_type *t = NULL;
	if (tn && mem_type(l, tn, &t))
		return -1;
	uint32_t size = t ? t->size : 8;
	if (size != 4 && size != 8)
		return err_form(l, n, "%s works on u32 or u64: %s", "atomic-add");
	struct val base, v;
	int64_t off;
	if (address(l, pn, on, &base, &off) || lower(l, vn, &v))
		return -1;
	if (off % size)
		return kl_error(l->c->d, on->span, "atomic-add offset %lld is not a multiple of %u", (long long)off, size);
	kl_vreg rv = reg_of(l, v), rb = access_base(l, base, &off);
	struct kl_ir_ins *i = emit(l, IR_XADD);
	i->a = rb;
	i->off = (int32_t)off;
	i->b = rv;
	i->size = (uint8_t)size;
	*out = cval(0);
	return 0;
}

/* (tail-call MAP INDEX): jump to the program at INDEX of a :prog-array map with this
 * program's context; when the slot is empty execution goes on after the form. The helper's
 * own three-argument form (tail-call CTX MAP INDEX) works too. */
static int f_tail_call(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 2, 3))
		return -1;
	bool own = n->nitems == 3;
	struct kl_mapdef *m = map_arg(l, n->items[own ? 1 : 2]);
	if (!m)
		return -1;
	if (m->m.type != BPF_MAP_TYPE_PROG_ARRAY)
		return kl_error(l->c->d, n->items[own ? 1 : 2]->span, "tail-call needs a :prog-array map; '%s' is a :%s map",
				m->name, m->mt->keyword);
	if (own && !l->pt)
		return kl_error(l->c->d, n->span, "(tail-call MAP INDEX) needs the program's context: in a defun "
				"write (tail-call ctx MAP INDEX)");
	struct val c = pval(l->ctx), ix;
	if ((!own && lower(l, n->items[1], &c)) || lower(l, n->items[own ? 2 : 3], &ix))
		return -1;
	kl_vreg args[3];
	args[0] = reg_of(l, c);
	args[1] = map_ref(l, m);
	args[2] = reg_of(l, ix);
	*out = rval(call(l, BPF_FUNC_tail_call, args, 3));
	return 0;
}

/* (stack-addr VAR): the address of a stack copy of VAR's current value (8 bytes), for
 * helpers that want a pointer to a scalar. Variables live in registers: a write through the
 * pointer does not change VAR. */
static int f_stack_addr(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 1, 1))
		return -1;
	struct val v;
	if (lower(l, n->items[1], &v))
		return -1;
	/* a slot of its own, not a temporary: the pointer may be kept and used much later */
	uint32_t s = slot(l, 8, 8);
	store_to(l, 0, s, 0, 8, v);
	*out = pval(slot_addr(l, s));
	return 0;
}

/* (log2 X): floor(log2(X)) over 64 bits, 0 for 0 and 1 — a binary search of six steps */
static int f_log2(struct lw *l, struct kl_node *n, struct val *out)
{
	struct val x;
	if (arity(l, n, 1, 1) || lower(l, n->items[1], &x))
		return -1;
	if (x.kind == V_CONST) {
		*out = cval(x.c ? 63 - __builtin_clzll((uint64_t)x.c) : 0);
		return 0;
	}
	kl_vreg w = fresh_copy(l, x), r = vreg(l);
	move_to(l, r, cval(0));
	for (int sh = 32; sh >= 1; sh /= 2) {
		uint32_t skip = label(l);
		if (sh == 32)   /* 2^32 does not fit an immediate: test the high half instead */
			branch(l, BPF_JEQ, rval(alu(l, BPF_RSH, rval(w), cval(32))), cval(0), skip);
		else
			branch(l, BPF_JLT, rval(w), cval((int64_t)1 << sh), skip);
		alu_in_place(l, BPF_RSH, w, sh);
		alu_in_place(l, BPF_ADD, r, sh);
		place(l, skip);
	}
	*out = rval(r);
	return 0;
}

/* The widest access (8, 4, 2, 1 bytes) at offsets a and b that stays within n bytes and keeps
 * both aligned: a and b count from 8-aligned addresses (a pointer's misalign is added in), as
 * the verifier wants aligned stack accesses. */
static uint32_t widest(int64_t a, int64_t b, int64_t n)
{
	uint32_t w = 8;
	while (w > 1 && ((a % w) || (b % w) || n < w))
		w /= 2;
	return w;
}

static int const_arg(struct lw *l, struct kl_node *n, const char *what, int64_t lo, int64_t hi, int64_t *v)
{
	if (kl_const_eval(l->c, n, v))
		return -1;
	if (*v < lo || *v > hi)
		return kl_error(l->c->d, n->span, "%s %lld is out of range %lld..%lld", what, (long long)*v,
				(long long)lo, (long long)hi);
	return 0;
}

/* (memset PTR OFFSET VALUE NBYTES): NBYTES bytes of VALUE's low byte from PTR + OFFSET, with
 * the widest stores; OFFSET and NBYTES are constants. */
static int f_memset(struct lw *l, struct kl_node *n, struct val *out)
{
	struct val base, v;
	int64_t off, len;
	if (arity(l, n, 4, 4) || lower(l, n->items[1], &base) ||
	    const_arg(l, n->items[2], "memset offset", 0, 65535, &off) || lower(l, n->items[3], &v) ||
	    const_arg(l, n->items[4], "memset length", 0, 65536, &len))
		return -1;
	if (v.kind == V_CONST) {
		v = cval((int64_t)((uint64_t)(v.c & 0xff) * 0x0101010101010101ULL));
		if (!fits32(v.c))
			v = rval(reg_of(l, v));
	} else {
		v = rval(alu(l, BPF_MUL, rval(alu(l, BPF_AND, v, cval(0xff))), rval(reg_of(l, cval(0x0101010101010101LL)))));
	}
	kl_vreg rb = reg_of(l, base);
	for (int64_t at = 0; at < len;) {
		uint32_t w = widest(base.misalign + off + at, 0, len - at);
		store_at(l, rval(rb), off + at, w, v);
		at += w;
	}
	*out = cval(0);
	return 0;
}

/* (memcpy DST DST-OFFSET SRC SRC-OFFSET NBYTES), offsets and NBYTES constants: the widest
 * loads and stores both alignments allow. */
static int f_memcpy(struct lw *l, struct kl_node *n, struct val *out)
{
	struct val dst, src;
	int64_t doff, soff, len;
	if (arity(l, n, 5, 5) || lower(l, n->items[1], &dst) ||
	    const_arg(l, n->items[2], "memcpy offset", 0, 65535, &doff) || lower(l, n->items[3], &src) ||
	    const_arg(l, n->items[4], "memcpy offset", 0, 65535, &soff) ||
	    const_arg(l, n->items[5], "memcpy length", 0, 65536, &len))
		return -1;
	kl_vreg rd = reg_of(l, dst), rs = reg_of(l, src);
	for (int64_t at = 0; at < len;) {
		uint32_t w = widest(dst.misalign + doff + at, src.misalign + soff + at, len - at);
		struct val v = load_at(l, rval(rs), soff + at, kl_type_sized(l->c->a, w));
		store_at(l, rval(rd), doff + at, w, v);
		at += w;
	}
	*out = cval(0);
	return 0;
}

/* (ash X N) with a constant N: X << N, or X >> -N when N is negative (logical, as the
 * values are unsigned) */
static int f_ash(struct lw *l, struct kl_node *n, struct val *out)
{
	struct val x;
	int64_t k;
	if (arity(l, n, 2, 2) || lower(l, n->items[1], &x) || const_arg(l, n->items[2], "ash count", -63, 63, &k))
		return -1;
	*out = arith2(l, find_arith(k < 0 ? ">>" : "<<"), x, cval(k < 0 ? -k : k));
	if (out->is_var)
		*out = rval(fresh_copy(l, *out));
	return 0;
}

/* A form built by the compiler itself, placed where `at` is. */
static struct kl_node *synth(struct lw *l, const struct kl_node *at, enum kl_node_kind kind, const char *str,
			     int64_t ival, uint32_t nitems)
{
	struct kl_node *n = kl_arena_new(l->c->a, struct kl_node);
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->span = at->span;
	n->str = str;
	n->ival = ival;
	n->nitems = nitems;
	n->items = nitems ? kl_arena_array(l->c->a, struct kl_node *, nitems) : NULL;
	return n;
}

/* (with-event (e EVENT RINGBUF) BODY...): reserve a record, run BODY with e pointing at
 * it, submit it. (discard-event) in BODY throws the record away instead. When the ring
 * buffer is full the body is skipped and RINGBUF-drops (made by kl_add_drop_counters)
 * counts the lost record. The ring buffer's records are described as EVENT in the BTF. */
static int f_with_event(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 1, UINT32_MAX))
		return -1;
	struct kl_node *spec = n->items[1];
	if (spec->kind != KL_N_LIST || spec->nitems != 3 || spec->items[0]->kind != KL_N_SYM)
		return err_form(l, spec, "%s needs (VAR EVENT RINGBUF): %s", "with-event");
	struct kl_type *ev = kl_type_parse(l->c, spec->items[1]);
	if (!ev)
		return -1;
	int64_t size = ev->size;
	struct kl_mapdef *m = map_arg(l, spec->items[2]);
	if (!m)
		return -1;
	if (m->m.type != BPF_MAP_TYPE_RINGBUF)
		return kl_error(l->c->d, spec->items[2]->span, "with-event needs a :ringbuf map; '%s' is a :%s map",
				m->name, m->mt->keyword);
	if (l->nevents == sizeof(l->events) / sizeof(l->events[0]))
		return err_form(l, n, "%s nests too deeply: %s", "with-event");
	if (!m->m.event && ev->kind == KL_T_STRUCT)
		m->m.event = ev;
	const char *drops = m->count_drops ? kl_arena_printf(l->c->a, "%s-drops", m->name) : NULL;
	kl_vreg args[3];
	args[0] = map_ref(l, m);
	args[1] = reg_of(l, cval(size));
	args[2] = reg_of(l, cval(0));
	kl_vreg rec = call(l, BPF_FUNC_ringbuf_reserve, args, 3);
	uint32_t lfull = label(l), ldone = label(l);
	branch(l, BPF_JEQ, rval(rec), cval(0), lfull);
	size_t mark = l->scope.len;
	bind(l, spec->items[0]->str, pval(rec), false);
	l->events[l->nevents].rec = rec;
	l->events[l->nevents++].done = ldone;
	struct val v;
	int err = lower_body(l, n->items + 2, n->nitems - 2, &v);
	l->nevents--;
	if (err)
		return -1;
	l->scope.len = mark;
	args[0] = rec;
	args[1] = reg_of(l, cval(0));
	call(l, BPF_FUNC_ringbuf_submit, args, 2);
	jump(l, ldone);
	place(l, lfull);
	if (drops && kl_map_lookup(l->c, drops)) {
		/* (incf (getmap RING-drops 0)) */
		struct kl_node *get = synth(l, n, KL_N_LIST, NULL, 0, 3);
		get->items[0] = synth(l, n, KL_N_SYM, "getmap", 0, 0);
		get->items[1] = synth(l, n, KL_N_SYM, drops, 0, 0);
		get->items[2] = synth(l, n, KL_N_INT, NULL, 0, 0);
		struct kl_node *inc = synth(l, n, KL_N_LIST, NULL, 0, 2);
		inc->items[0] = synth(l, n, KL_N_SYM, "incf", 0, 0);
		inc->items[1] = get;
		if (lower(l, inc, &v))
			return -1;
	}
	place(l, ldone);
	*out = cval(0);
	return 0;
}

/* (discard-event): inside with-event, throw the record away and leave the with-event. */
static int f_discard_event(struct lw *l, struct kl_node *n, struct val *out)
{
	if (arity(l, n, 0, 0))
		return -1;
	if (!l->nevents)
		return err_form(l, n, "%s is only meaningful inside with-event: %s", "discard-event");
	kl_vreg args[2] = { l->events[l->nevents - 1].rec, reg_of(l, cval(0)) };
	call(l, BPF_FUNC_ringbuf_discard, args, 2);
	jump(l, l->events[l->nevents - 1].done);
	*out = cval(0);
	return 0;
}

static const struct {
	const char *name;
	form_fn fn;
} forms[] = {
	{ "with-event", f_with_event },
	{ "discard-event", f_discard_event },
	{ "progn", f_progn }, { "if", f_if }, { "when", f_when }, { "unless", f_unless },
	{ "cond", f_cond }, { "and", f_andor }, { "or", f_andor }, { "not", f_not },
	{ "return", f_return }, { "let", f_let }, { "let*", f_letstar }, { "when-let", f_when_let },
	{ "if-let", f_if_let }, { "dotimes", f_dotimes }, { "loop", f_loop }, { "setf", f_setf },
	{ "setq", f_setf }, { "incf", f_incdec }, { "decf", f_incdec }, { "lognot", f_lognot },
	{ "cast", f_cast }, { "load", f_load }, { "store", f_store }, { "ctx", f_ctx },
	{ "getmap", f_getmap }, { "map-lookup", f_map_lookup }, { "map-update", f_map_update },
	{ "remmap", f_remmap }, { "map-delete", f_remmap }, { "delmap", f_remmap },
	{ "stack-buffer", f_stack_buffer }, { "make-stack", f_stack_buffer },
	{ "sizeof", f_const_form }, { "offsetof", f_const_form }, { "event-size", f_const_form },
	{ "event-field-offset", f_const_form }, { "event-field-size", f_const_form },
	{ "atomic-add", f_atomic_add }, { "tail-call", f_tail_call }, { "stack-addr", f_stack_addr },
	{ "log2", f_log2 }, { "memset", f_memset }, { "memcpy", f_memcpy }, { "ash", f_ash },
	{ "struct-alloc", f_stack_buffer }, { "ctx-load", f_ctx_load }, { "ctx-store", f_ctx_store },
	{ "ctx-ptr", f_ctx_ptr }, { "pass-action", f_pass_action }, { "map-lookup-ptr", f_map_lookup },
	{ "map-update-ptr", f_map_update }, { "map-delete-ptr", f_remmap },
};

/* "did you mean ...?" over every name a form can start with: forms, operators, helpers,
 * macros, and the program's own functions, accessors and make-STRUCT constructors. */
static const char *near_hint(struct kl_comp *c, const char *h, char *buf, size_t size)
{
	struct kl_nearest nb;
	kl_nearest_init(&nb, h);
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		kl_nearest_add(&nb, forms[i].name);
	for (size_t i = 0; i < sizeof(arith_ops) / sizeof(arith_ops[0]); i++)
		kl_nearest_add(&nb, arith_ops[i].name);
	for (size_t i = 0; i < sizeof(cmp_ops) / sizeof(cmp_ops[0]); i++)
		kl_nearest_add(&nb, cmp_ops[i].name);
	for (size_t i = 0; i < sizeof(swap_ops) / sizeof(swap_ops[0]); i++)
		kl_nearest_add(&nb, swap_ops[i].name);
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

static int lower_list(struct lw *l, struct kl_node *n, struct val *out)
{
	if (n->nitems == 0)
		return kl_error(l->c->d, n->span, "empty form '()' is not an expression");
	struct kl_node *hd = n->items[0];
	if (hd->kind != KL_N_SYM)
		return err_form(l, n, "%s: a form must start with a symbol: %s", "syntax error");
	const char *h = hd->str;
	if (kl_macro_is(l->c, h)) {
		struct kl_node *x = kl_macro_expand(l->c, n);
		if (!x)
			return -1;
		l->c->expansions++;
		if (l->ncalls++ < sizeof(l->calls) / sizeof(l->calls[0]))
			l->calls[l->ncalls - 1] = n->span;
		int r = lower(l, x, out);
		l->ncalls--;
		l->c->expansions--;
		return r;
	}
	if (!strcmp(h, "declare")) {       /* only meaningful at the start of a binding form's body */
		*out = cval(0);
		return 0;
	}
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (!strcmp(forms[i].name, h))
			return forms[i].fn(l, n, out);
	if (find_arith(h))
		return f_arith(l, n, out);
	if (find_cmp(h))
		return f_cmp(l, n, out);
	for (size_t i = 0; i < sizeof(swap_ops) / sizeof(swap_ops[0]); i++)
		if (!strcmp(swap_ops[i].name, h))
			return f_swap(l, n, out);
	const struct kl_accessor *acc = kl_accessor_lookup(l->c, h);
	if (acc)
		return f_accessor(l, n, acc, out);
	size_t hl = strlen(h);
	if (hl > 4 && !strcmp(h + hl - 4, "-ptr") &&
	    (acc = kl_accessor_lookup(l->c, kl_arena_strndup(l->c->a, h, hl - 4))))
		return f_field_ptr(l, n, acc, out);
	struct kl_structdef *sd = !strncmp(h, "make-", 5) ? kl_struct_lookup(l->c, h + 5) : NULL;
	if (sd)
		return f_make_struct(l, n, sd, out);
	struct kl_fundef *fd = kl_fun_lookup(l->c, h);
	if (fd)
		return f_funcall(l, n, fd, out);
	const char *hn = !strncmp(h, "bpf-", 4) ? h + 4 : h;
	const struct kl_helper *helper = kl_helper_find(hn);
	if (helper)
		return f_helper(l, n, helper, out);
	char buf[160], hint[320];
	kl_node_str(n, buf, sizeof(buf));
	return kl_error(l->c->d, hd->span, "unknown function or form '%s' in %s%s%s", h, buf,
			near_hint(l->c, h, hint, sizeof(hint))[0] ? "; " : "", hint);
}

static int lower(struct lw *l, struct kl_node *n, struct val *out)
{
	switch (n->kind) {
	case KL_N_INT:
		*out = cval(n->ival);
		return 0;
	case KL_N_SYM: {
		struct binding *b = find_var(l, n->str);
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
		if (kl_map_lookup(l->c, n->str))
			return kl_error(l->c->d, n->span, "map '%s' used as a value; pass it to getmap, map-lookup "
					"or a helper", n->str);
		return kl_error(l->c->d, n->span, "unknown variable '%s'", n->str);
	}
	case KL_N_KEY:
		return kl_error(l->c->d, n->span, "keyword ':%s' is not an expression here", n->str);
	case KL_N_STR:
		return kl_error(l->c->d, n->span, "string \"%s\" is not an expression here", n->str);
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
	struct kl_ir_ins *i = emit(l, IR_RET);
	if (v.kind == V_CONST) {
		i->has_imm = true;
		i->imm = v.c;
	} else {
		i->a = v.r;
	}
	return 0;
}

struct kl_ir_func *kl_lower_prog(struct kl_comp *c, struct kl_progdef *p)
{
	struct lw l = { 0 };
	struct kl_ir_func *f = new_func(&l, c, p->name, p->form);
	l.pt = p->pt;
	l.section = p->section;
	struct kl_ir_ins *e = emit(&l, IR_ENTRY);
	e->d = l.ctx = vreg(&l);
	struct binding b = { "ctx", rval(l.ctx), false, NULL, false, NULL };
	kl_vec_push(c->a, &l.scope, b);
	struct val v;
	if (lower_body(&l, p->form->items + p->body_start, p->form->nitems - p->body_start, &v) || finish(&l, v))
		return NULL;
	return f;
}

struct kl_ir_func *kl_lower_fun(struct kl_comp *c, struct kl_fundef *fd)
{
	struct lw l = { 0 };
	struct kl_ir_func *f = new_func(&l, c, fd->name, fd->form);
	struct kl_node **body = fd->form->items + 3;
	uint32_t nbody = fd->form->nitems - 3;
	for (uint32_t i = 0; i < fd->nparams; i++) {
		struct kl_ir_ins *e = emit(&l, IR_ENTRY);
		e->imm = i;
		e->d = vreg(&l);
		const char *name = fd->params->items[i]->str;
		bool mut = body_assigns(&l, body, nbody, name);
		struct binding b = { name, rval(e->d), mut, NULL, false, NULL };
		if (mut)
			b.v.is_var = true;
		kl_vec_push(c->a, &l.scope, b);
	}
	struct val v;
	if (lower_body(&l, body, nbody, &v) || finish(&l, v))
		return NULL;
	return f;
}
