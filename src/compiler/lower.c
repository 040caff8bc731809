/* lower.c — expressions to IR. Each special form is a row in a table (here for control,
 * binding, arithmetic and casts; lower_data.c's for memory, maps, places and calls), with
 * its shape, which tells the expand stage (expand_stage.c) which arguments are code: lowering
 * itself expands no macro, it lowers the expansion the stage left on each call; values
 * are constants (folded on the way) or virtual registers; conditions lower straight to
 * branches so the verifier sees the packet and null checks the program wrote. */
#include "lower_internal.h"
#include "lower.h"
#include "expand.h"
#include "expand_stage.h"
#include "nearest.h"
#include "opt.h"
#include "names.h"
#include "tracefs.h"
#include <ctype.h>
#include <linux/pkt_cls.h>
#include <stdio.h>
#include <string.h>

/* ---- IR building ---- */




uint32_t kl_lw_slot(struct lw *l, uint32_t size, uint32_t align)
{
	return kl_ir_slot(l->c->a, l->f, size, align);
}



/* The value in a register (materialising a constant). */
kl_vreg kl_lw_reg_of(struct lw *l, struct val v)
{
	if (v.kind == V_REG)
		return v.r;
	struct kl_ir_ins *i = emit(l, IR_MOVI);
	i->d = vreg(l);
	i->imm = v.c;
	return i->d;
}

/* A register the caller may overwrite. */
kl_vreg kl_lw_fresh_copy(struct lw *l, struct val v)
{
	if (v.kind == V_CONST)
		return kl_lw_reg_of(l, v);
	struct kl_ir_ins *i = emit(l, IR_MOV);
	i->d = vreg(l);
	i->a = v.r;
	return i->d;
}

void kl_lw_move_to(struct lw *l, kl_vreg d, struct val v)
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

kl_vreg kl_lw_alu(struct lw *l, uint8_t op, struct val a, struct val b)
{
	kl_vreg ra = kl_lw_reg_of(l, a);
	kl_vreg rb = b.kind == V_CONST && fits32(b.c) ? 0 : kl_lw_reg_of(l, b);
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
void kl_lw_alu_in_place(struct lw *l, uint8_t op, kl_vreg r, int64_t imm)
{
	struct kl_ir_ins *i = emit(l, IR_ALU);
	i->alu = op;
	i->d = i->a = r;
	i->has_imm = true;
	i->imm = imm;
}

void kl_lw_branch(struct lw *l, uint8_t cond, struct val a, struct val b, uint32_t lab)
{
	kl_vreg ra = kl_lw_reg_of(l, a);
	kl_vreg rb = 0;
	if (!(b.kind == V_CONST && fits32(b.c)))
		rb = kl_lw_reg_of(l, b);
	struct kl_ir_ins *i = emit(l, IR_BR);
	i->alu = cond;
	i->a = ra;
	i->label = lab;
	i->bounds = a.pkt_end ? KL_BOUNDS_END_A : b.pkt_end ? KL_BOUNDS_END_B : 0;
	if (rb)
		i->b = rb;
	else {
		i->has_imm = true;
		i->imm = b.c;
	}
}

/* ---- errors ---- */

int kl_lw_err_form(struct lw *l, const struct kl_node *n, const char *fmt, const char *what)
{
	char buf[160];
	kl_node_str(n, buf, sizeof(buf));
	return kl_error(l->c->d, n->span, fmt, what, buf);
}

int kl_lw_arity(struct lw *l, struct kl_node *n, uint32_t min, uint32_t max)
{
	uint32_t got = n->nitems - 1;
	if (got >= min && got <= max)
		return 0;
	char buf[160];
	kl_node_str(n, buf, sizeof(buf));
	if (min == max)
		return kl_error(l->c->d, n->span, "'%s' takes %u argument%s, got %u: %s", kl_name(n->items[0]), min,
				min == 1 ? "" : "s", got, buf);
	if (max == UINT32_MAX)
		return kl_error(l->c->d, n->span, "'%s' takes at least %u argument%s, got %u: %s", kl_name(n->items[0]),
				min, min == 1 ? "" : "s", got, buf);
	return kl_error(l->c->d, n->span, "'%s' takes %u to %u arguments, got %u: %s", kl_name(n->items[0]), min,
			max, got, buf);
}

/* ---- scopes ---- */

struct binding *kl_lw_find_var(struct lw *l, const char *name)
{
	for (size_t i = l->scope.len; i-- > 0;)
		if (!strcmp(l->scope.items[i].name, name))
			return &l->scope.items[i];
	return l->outer ? kl_lw_capture(l, name) : NULL;
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

static void bind_typed(struct lw *l, const char *name, struct val v, bool mutable, const struct kl_type *t)
{
	if (t && t->kind == KL_T_INT && t->size < 8)
		v = kl_lw_truncate(l, v, t->size, t->is_signed);
	else if (t && t->kind == KL_T_PTR && !(t->elem && t->elem->core))
		v.is_ptr = true;
	if (t && t->kind == KL_T_PTR && t->elem && t->elem->core) {
		v.is_ptr = false;                 /* a kernel pointer, read through CO-RE */
		v.kt = t->elem->name;
	}
	bool ptr = v.is_ptr;
	uint8_t mis = v.misalign;
	const char *kt = v.kt;
	bool trusted = v.trusted && !mutable && !(t && t->kind == KL_T_PTR);
	int32_t inner = v.inner;
	bool pkt_end = v.pkt_end && !mutable;   /* a variable may be set to something else */
	if (mutable) {
		kl_vreg r = vreg(l);
		kl_lw_move_to(l, r, v);
		v = rval(r);
		v.is_var = true;
	} else if (v.is_var) {
		v = rval(kl_lw_fresh_copy(l, v));
	}
	v.is_ptr = ptr;
	v.misalign = mis;
	v.kt = kt;
	v.trusted = trusted;
	v.inner = inner;
	v.pkt_end = pkt_end;
	struct binding b = { name, v, mutable, t, false, NULL };
	kl_vec_push(l->c->a, &l->scope, b);
}

void kl_lw_bind(struct lw *l, const char *name, struct val v, bool mutable)
{
	bind_typed(l, name, v, mutable, NULL);
}

int kl_lw_lower_body(struct lw *l, struct kl_node **body, uint32_t n, struct val *out)
{
	*out = cval(0);
	for (uint32_t i = 0; i < n; i++)
		if (kl_lw_lower(l, body[i], out))
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
		if (kl_lw_lower(l, n->items[1], &a) || kl_lw_lower(l, n->items[2], &b)) {
			r = -1;
		} else {
			uint8_t cond = when ? cmp->cond : kl_cond_invert(cmp->cond);
			if (a.kind == V_CONST && b.kind == V_CONST) {
				if (kl_cond_holds(cond, a.c, b.c) == 1)
					jump(l, lab);
			} else if (a.kind == V_CONST) {
				kl_lw_branch(l, kl_cond_swap(cond), b, a, lab);
			} else {
				kl_lw_branch(l, cond, a, b, lab);
			}
		}
	} else {
		struct val v;
		if (kl_lw_lower(l, n, &v))
			r = -1;
		else if (v.kind == V_CONST) {
			if ((v.c != 0) == when)
				jump(l, lab);
		} else {
			kl_lw_branch(l, when ? BPF_JNE : BPF_JEQ, v, cval(0), lab);
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
	kl_lw_move_to(l, r, cval(1));
	if (lower_branch(l, n, done, true))
		return -1;
	kl_lw_move_to(l, r, cval(0));
	place(l, done);
	*out = rval(r);
	return 0;
}

/* ---- control forms ---- */

static int f_progn(struct lw *l, struct kl_node *n, struct val *out)
{
	return kl_lw_lower_body(l, n->items + 1, n->nitems - 1, out);
}

static int f_if(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 2, 3))
		return -1;
	uint32_t lelse = label(l), lend = label(l);
	kl_vreg r = vreg(l);
	struct val v;
	if (lower_branch(l, n->items[1], lelse, false) || kl_lw_lower(l, n->items[2], &v))
		return -1;
	kl_lw_move_to(l, r, v);
	bool ptr = v.is_ptr;
	jump(l, lend);
	place(l, lelse);
	if (n->nitems == 4) {
		if (kl_lw_lower(l, n->items[3], &v))
			return -1;
	} else {
		v = cval(0);
	}
	kl_lw_move_to(l, r, v);
	place(l, lend);
	*out = rval(r);
	out->is_ptr = ptr && v.is_ptr;   /* (if c key-a key-b) of two struct keys is still a pointer */
	return 0;
}

static int when_unless(struct lw *l, struct kl_node *n, struct val *out, bool when)
{
	if (kl_lw_arity(l, n, 1, UINT32_MAX))
		return -1;
	uint32_t lskip = label(l);
	kl_vreg r = vreg(l);
	struct val v;
	kl_lw_move_to(l, r, cval(0));
	if (lower_branch(l, n->items[1], lskip, !when) || kl_lw_lower_body(l, n->items + 2, n->nitems - 2, &v))
		return -1;
	kl_lw_move_to(l, r, v);
	place(l, lskip);
	*out = rval(r);
	return 0;
}

static int f_when(struct lw *l, struct kl_node *n, struct val *out) { return when_unless(l, n, out, true); }
static int f_unless(struct lw *l, struct kl_node *n, struct val *out) { return when_unless(l, n, out, false); }

static int f_cond(struct lw *l, struct kl_node *n, struct val *out)
{
	int sw = kl_lw_switch(l, n, out);   /* lower_switch.c: a cond of key tests */
	if (sw <= 0)
		return sw;
	uint32_t lend = label(l);
	kl_vreg r = vreg(l);
	bool closed = false;
	for (uint32_t i = 1; i < n->nitems; i++) {
		struct kl_node *cl = n->items[i];
		if (cl->kind != KL_N_LIST || cl->nitems < 1)
			return kl_lw_err_form(l, cl, "%s clause must be (TEST BODY...): %s", "cond");
		struct val v;
		uint32_t lnext = label(l);
		bool always = kl_lw_always_clause(cl);
		if ((!always && lower_branch(l, cl->items[0], lnext, false)) || kl_lw_clause_value(l, cl, &v))
			return -1;
		kl_lw_move_to(l, r, v);
		jump(l, lend);
		place(l, lnext);
		if (always) {
			closed = true;
			break;
		}
	}
	if (!closed)
		kl_lw_move_to(l, r, cval(0));
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
	if (kl_lw_arity(l, n, 1, 1))
		return -1;
	return bool_value(l, n, out);
}

static int f_return(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 0, 1))
		return -1;
	if (l->outer)   /* lower_loop.c then lowers the dotimes as a loop */
		return kl_lw_err_form(l, n, "%s cannot leave a bpf_loop callback: %s", "return");
	struct val v = cval(0);
	if (n->nitems == 2 && kl_lw_lower(l, n->items[1], &v))
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

/* mut[i]: binding i is assigned in the body or, when the bindings are sequential (bindings
 * given), in a later binding's form. */
static void mutable_bindings(struct lw *l, struct kl_node **body, uint32_t nbody, struct kl_node **bindings,
			     const struct bspec *specs, uint32_t n, bool *mut)
{
	struct kl_names set = { 0 };
	kl_lw_assigned(l, body, nbody, &set);
	for (uint32_t i = n; i-- > 0;) {
		mut[i] = kl_names_get(&set, specs[i].name) >= 0;
		if (bindings)
			kl_lw_assigned(l, bindings + i, 1, &set);
	}
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
		return kl_lw_err_form(l, b, "%s binding must be (NAME VALUE) or (NAME TYPE VALUE): %s", form);
	out->name = b->items[0]->str;
	out->at = b->items[0];
	if (b->nitems == 3) {
		const char *h = kl_head(b->items[1]);
		if (h && !strcmp(h, "*")) {
			/* (* TYPE): a pointer; to a kernel struct, one read through CO-RE */
			if (!(out->type = kl_type_parse(l->c, b->items[1])))
				return -1;
		} else if (!(out->type = var_type(b->items[1])))
			return kl_lw_err_form(l, b->items[1], "%s binding type must be u8 u16 u32 u64 i8 i16 i32 i64, ptr "
					      "or (* TYPE): %s", form);
		out->init = b->items[2];
	} else if (b->nitems == 2) {
		out->type = kl_lw_find_var(l, b->items[1]->str ? b->items[1]->str : "") ? NULL : var_type(b->items[1]);
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
				return kl_lw_err_form(l, spec, "%s needs (type TYPE VAR...) with TYPE u8 .. i64 or ptr: %s",
						"declare");
			for (uint32_t v = 2; v < spec->nitems; v++) {
				uint32_t j;
				for (j = 0; j < nspecs; j++)
					if (kl_is_sym(spec->items[v], specs[j].name)) {
						specs[j].type = t;
						break;
					}
				if (j == nspecs)
					return kl_lw_err_form(l, spec->items[v], "%s names a variable this form does not bind: %s",
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
	if (kl_lw_arity(l, n, 1, UINT32_MAX))
		return -1;
	const char *form = n->items[0]->str;
	struct kl_node *bs = n->items[1];
	if (bs->kind != KL_N_LIST)
		return kl_lw_err_form(l, bs, "%s bindings must be a list ((NAME VALUE) ...): %s", form);
	size_t mark = l->scope.len;
	struct val vals[64];
	struct bspec specs[64];
	if (bs->nitems > 64)
		return kl_lw_err_form(l, bs, "%s has too many bindings: %s", form);
	for (uint32_t i = 0; i < bs->nitems; i++)
		if (binding_spec(l, form, bs->items[i], &specs[i]))
			return -1;
	uint32_t ndecl;
	if (declarations(l, n->items + 2, n->nitems - 2, specs, bs->nitems, &ndecl))
		return -1;
	struct kl_node **body = n->items + 2 + ndecl;
	uint32_t nbody = n->nitems - 2 - ndecl;
	bool mut[64];
	mutable_bindings(l, body, nbody, sequential ? bs->items : NULL, specs, bs->nitems, mut);
	for (uint32_t i = 0; i < bs->nitems; i++) {
		vals[i] = cval(0);
		if (specs[i].init && kl_lw_lower(l, specs[i].init, &vals[i]))
			return -1;
		if (sequential) {
			bind_typed(l, specs[i].name, vals[i], mut[i], specs[i].type);
			mark_user(l, n, &specs[i]);
		}
	}
	if (!sequential)
		for (uint32_t i = 0; i < bs->nitems; i++) {
			bind_typed(l, specs[i].name, vals[i], mut[i], specs[i].type);
			mark_user(l, n, &specs[i]);
		}
	int r = kl_lw_lower_body(l, body, nbody, out);
	if (!r && out->is_var)
		*out = rval(kl_lw_fresh_copy(l, *out));
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
	if (kl_lw_arity(l, n, 1, has_else ? 3 : UINT32_MAX))
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
		return kl_lw_err_form(l, bs, "%s needs bindings ((NAME VALUE) ...): %s", form);
	struct bspec specs[16];
	for (uint32_t i = 0; i < nb; i++) {
		if (list[i]->kind != KL_N_LIST || list[i]->nitems < 2)
			return kl_lw_err_form(l, list[i], "%s binding must be (NAME VALUE) or (NAME TYPE VALUE): %s", form);
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
	bool mut[16];
	mutable_bindings(l, body, nbody, list, specs, nb, mut);
	for (uint32_t i = 0; i < nb; i++) {
		struct val bv = cval(0);
		if (specs[i].init && kl_lw_lower(l, specs[i].init, &bv))
			return -1;
		bind_typed(l, specs[i].name, bv, mut[i], specs[i].type);
		mark_user(l, n, &specs[i]);
		kl_lw_branch(l, BPF_JEQ, l->scope.items[l->scope.len - 1].v, cval(0), lelse);
	}
	struct val v;
	if (kl_lw_lower_body(l, body, nbody, &v))
		return -1;
	warn_unused(l, mark);
	l->scope.len = mark;
	kl_lw_move_to(l, r, v);
	jump(l, lend);
	place(l, lelse);
	v = cval(0);
	if (has_else && n->nitems == 4 && kl_lw_lower(l, n->items[3], &v))
		return -1;
	kl_lw_move_to(l, r, v);
	place(l, lend);
	*out = rval(r);
	return 0;
}

static int f_when_let(struct lw *l, struct kl_node *n, struct val *out) { return bind_test(l, n, out, false); }
static int f_if_let(struct lw *l, struct kl_node *n, struct val *out) { return bind_test(l, n, out, true); }

/* (loop :while COND BODY...) */
static int f_loop(struct lw *l, struct kl_node *n, struct val *out)
{
	if (n->nitems < 3 || !kl_is_key(n->items[1], "while"))
		return kl_lw_err_form(l, n, "%s must be (loop :while COND BODY...): %s", "loop");
	uint32_t top = label(l), end = label(l);
	place(l, top);
	if (lower_branch(l, n->items[2], end, false))
		return -1;
	struct val v;
	l->loop_depth++;
	if (kl_lw_lower_body(l, n->items + 3, n->nitems - 3, &v))
		return -1;
	l->loop_depth--;
	jump(l, top);
	place(l, end);
	*out = cval(0);
	return 0;
}

/* ---- arithmetic ---- */

static const struct arith_op arith_ops[] = {
	{ "+", BPF_ADD, true }, { "-", BPF_SUB, false }, { "*", BPF_MUL, true }, { "/", BPF_DIV, false },
	{ "mod", BPF_MOD, false }, { "logand", BPF_AND, true }, { "logior", BPF_OR, true },
	{ "logxor", BPF_XOR, true }, { "<<", BPF_LSH, false }, { ">>", BPF_RSH, false },
	{ ">>>", BPF_ARSH, false }, { "rem", BPF_MOD, false },
};

/* One binary step with folding and the identities that need no code. */
struct val kl_lw_arith2(struct lw *l, const struct arith_op *op, struct val a, struct val b)
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
			return rval(kl_lw_alu(l, op->alu == BPF_MUL ? BPF_LSH : BPF_RSH, a, cval(sh)));
		}
		if (op->alu == BPF_MOD && k > 0 && !(k & (k - 1)))
			return rval(kl_lw_alu(l, BPF_AND, a, cval(k - 1)));
		if (op->alu == BPF_SUB && fits32(-k))
			return rval(kl_lw_alu(l, BPF_ADD, a, cval(-k)));
	}
	return rval(kl_lw_alu(l, op->alu, a, b));
}

const struct arith_op *kl_lw_find_arith(const char *h)
{
	for (size_t i = 0; h && i < sizeof(arith_ops) / sizeof(arith_ops[0]); i++)
		if (!strcmp(arith_ops[i].name, h))
			return &arith_ops[i];
	return NULL;
}

static int f_arith(struct lw *l, struct kl_node *n, struct val *out)
{
	const struct arith_op *op = kl_lw_find_arith(n->items[0]->str);
	bool binary = op->alu == BPF_DIV || op->alu == BPF_MOD || op->alu == BPF_LSH ||
		      op->alu == BPF_RSH || op->alu == BPF_ARSH;
	if (kl_lw_arity(l, n, binary ? 2 : (op->alu == BPF_SUB ? 1 : 0), binary ? 2 : UINT32_MAX))
		return -1;
	if (n->nitems == 1) {
		*out = cval(op->alu == BPF_MUL ? 1 : op->alu == BPF_AND ? -1 : 0);
		return 0;
	}
	struct val acc;
	if (kl_lw_lower(l, n->items[1], &acc))
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
		if (kl_lw_lower(l, n->items[k], &b))
			return -1;
		/* pointer plus or minus an integer is still a pointer */
		bool ptr = (op->alu == BPF_ADD && (acc.is_ptr || b.is_ptr)) || (op->alu == BPF_SUB && acc.is_ptr && !b.is_ptr);
		/* p + K keeps track of p's alignment, for memset and memcpy */
		uint8_t mis = acc.is_ptr && b.kind == V_CONST && (op->alu == BPF_ADD || op->alu == BPF_SUB)
				      ? (uint8_t)((acc.misalign + (op->alu == BPF_ADD ? b.c : -b.c)) & 7)
				      : b.is_ptr && acc.kind == V_CONST ? (uint8_t)((b.misalign + acc.c) & 7) : 0;
		acc = kl_lw_arith2(l, op, acc, b);
		acc.is_ptr = ptr;
		acc.misalign = ptr ? mis : 0;
	}
	if (acc.is_var)
		acc = rval(kl_lw_fresh_copy(l, acc));
	*out = acc;
	return 0;
}

static int f_lognot(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 1, 1) || kl_lw_lower(l, n->items[1], out))
		return -1;
	if (out->kind == V_CONST)
		out->c = ~out->c;
	else
		*out = rval(kl_lw_alu(l, BPF_XOR, *out, cval(-1)));
	return 0;
}

static int f_cmp(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 2, 2))
		return -1;
	return bool_value(l, n, out);
}

/* ---- casts and byte order ---- */

struct val kl_lw_truncate(struct lw *l, struct val v, uint32_t size, bool sign)
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
		kl_vreg r = kl_lw_alu(l, BPF_LSH, v, cval(64 - bits));
		return rval(kl_lw_alu(l, BPF_ARSH, rval(r), cval(64 - bits)));
	}
	if (size == 4) {
		struct kl_ir_ins *i = emit(l, IR_ALU32);
		i->alu = BPF_MOV;
		i->a = v.r;
		i->d = vreg(l);
		return rval(i->d);
	}
	return rval(kl_lw_alu(l, BPF_AND, v, cval((int64_t)((1ULL << bits) - 1))));
}

static int f_cast(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 2, 2))
		return -1;
	struct kl_type *t = n->items[1]->kind == KL_N_SYM ? kl_type_builtin(n->items[1]->str) : NULL;
	if (!t || t->kind != KL_T_INT)
		return kl_lw_err_form(l, n->items[1], "%s needs an integer type (u8 u16 u32 u64 i8 i16 i32 i64): %s", "cast");
	if (kl_lw_lower(l, n->items[2], out))
		return -1;
	*out = kl_lw_truncate(l, *out, t->size, t->is_signed);
	return 0;
}

struct swap_op { const char *name; uint8_t bits; };
static const struct swap_op swap_ops[] = {
	{ "ntohs", 16 }, { "htons", 16 }, { "ntohl", 32 }, { "htonl", 32 }, { "bswap16", 16 },
	{ "bswap32", 32 }, { "bswap64", 64 }, { "ntohll", 64 }, { "htonll", 64 }, { "be64toh", 64 },
};

static int f_swap(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 1, 1) || kl_lw_lower(l, n->items[1], out))
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

static const struct kl_lw_form forms[] = {
	{ "progn", f_progn, "e" }, { "if", f_if, "e" }, { "when", f_when, "e" },
	{ "unless", f_unless, "e" }, { "cond", f_cond, "c" }, { "and", f_andor, "e" },
	{ "or", f_andor, "e" }, { "not", f_not, "e" }, { "return", f_return, "e" }, { "let", f_let, "be" },
	{ "let*", f_letstar, "be" }, { "when-let", f_when_let, "we" }, { "if-let", f_if_let, "we" },
	{ "loop", f_loop, "e" }, { "lognot", f_lognot, "e" }, { "cast", f_cast, "de" },
};

/* The other files' forms: memory, maps and places; kernel types; keyless maps. */
static const struct { const struct kl_lw_form *forms; const size_t *n; } form_tables[] = {
	{ kl_lw_data_forms, &kl_lw_ndata_forms }, { kl_lw_core_forms, &kl_lw_ncore_forms },
	{ kl_lw_queue_forms, &kl_lw_nqueue_forms }, { kl_lw_event_forms, &kl_lw_nevent_forms },
	{ kl_lw_func_forms, &kl_lw_nfunc_forms }, { kl_lw_loop_forms, &kl_lw_nloop_forms },
};

/* "did you mean ...?" over every name a form can start with: forms, operators, helpers,
 * macros, and the program's own functions, accessors and make-STRUCT constructors. */
static const char *near_hint(struct kl_comp *c, const char *h, char *buf, size_t size)
{
	struct kl_nearest nb;
	kl_nearest_init(&nb, h);
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		kl_nearest_add(&nb, forms[i].name);
	for (size_t t = 0; t < sizeof(form_tables) / sizeof(form_tables[0]); t++)
		for (size_t i = 0; i < *form_tables[t].n; i++)
			kl_nearest_add(&nb, form_tables[t].forms[i].name);
	for (size_t i = 0; i < kl_lw_nargs_forms; i++)
		kl_nearest_add(&nb, kl_lw_args_forms[i].name);
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

const char *kl_lower_shape(const char *h)
{
	if (!strcmp(h, "declare"))
		return "d";
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (!strcmp(forms[i].name, h))
			return forms[i].shape;
	for (size_t t = 0; t < sizeof(form_tables) / sizeof(form_tables[0]); t++)
		for (size_t i = 0; i < *form_tables[t].n; i++)
			if (!strcmp(form_tables[t].forms[i].name, h))
				return form_tables[t].forms[i].shape;
	for (size_t i = 0; i < kl_lw_nargs_forms; i++)
		if (!strcmp(kl_lw_args_forms[i].name, h))
			return kl_lw_args_forms[i].shape;
	return NULL;
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
			kl_expansion_note(l->c, n);
		return r;
	}
	if (!strcmp(h, "declare")) {       /* only meaningful at the start of a binding form's body */
		*out = cval(0);
		return 0;
	}
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (!strcmp(forms[i].name, h))
			return forms[i].fn(l, n, out);
	for (size_t t = 0; t < sizeof(form_tables) / sizeof(form_tables[0]); t++)
		for (size_t i = 0; i < *form_tables[t].n; i++)
			if (!strcmp(form_tables[t].forms[i].name, h))
				return form_tables[t].forms[i].fn(l, n, out);
	for (size_t i = 0; i < kl_lw_nargs_forms; i++)
		if (!strcmp(kl_lw_args_forms[i].name, h))
			return kl_lw_args_forms[i].fn(l, n, out);
	if (kl_lw_find_arith(h))
		return f_arith(l, n, out);
	if (find_cmp(h))
		return f_cmp(l, n, out);
	for (size_t i = 0; i < sizeof(swap_ops) / sizeof(swap_ops[0]); i++)
		if (!strcmp(swap_ops[i].name, h))
			return f_swap(l, n, out);
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
		if (kl_map_lookup(l->c, n->str))
			return kl_error(l->c->d, n->span, "map '%s' used as a value; pass it to getmap, map-lookup "
					"or a helper", kl_name(n));
		return kl_error(l->c->d, n->span, "unknown variable '%s'", kl_name(n));
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
