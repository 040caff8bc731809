/* lower_ir.c — the floor every lowering file stands on: building IR (registers, stack slots,
 * moves, ALU steps with their constant folding and identities, branches, helper calls,
 * truncation to a width), the errors every form reports (wrong form, wrong arity), and the
 * scopes (bindings, variable lookup, including a bpf_loop callback's captures of the
 * variables around it, and the unused-variable warning). It lowers no form and calls
 * nothing of the files above it. */
#include "lower_ir.h"
#include "nearest.h"
#include <linux/bpf.h>
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

/* "" names the program's context register: no symbol is empty. */
struct kl_lw_cap *kl_lw_add_cap(struct lw *l, const char *name, struct binding *ob, struct val outer)
{
	struct kl_lw_cap *cp = kl_arena_new(l->c->a, struct kl_lw_cap);
	if (ob)
		cp->b = *ob;
	cp->b.name = name;
	cp->b.used = false;
	cp->b.at = NULL;
	cp->outer = outer;
	cp->off = -1;
	cp->b.v = outer;
	if (outer.kind == V_REG)
		cp->b.v.r = vreg(l);
	kl_vec_push(l->c->a, &l->caps->v, cp);
	return cp;
}

struct binding *kl_lw_capture(struct lw *l, const char *name)
{
	for (size_t i = 0; i < l->caps->v.len; i++)
		if (!strcmp(l->caps->v.items[i]->b.name, name))
			return &l->caps->v.items[i]->b;
	struct binding *ob = kl_lw_find_var(l->outer, name);
	if (!ob)
		return NULL;
	ob->used = true;
	struct binding copy = *ob;
	return &kl_lw_add_cap(l, name, &copy, copy.v)->b;
}

/* Whether a node is the user's own: in the program's file, and not made by a macro (a
 * macro's nodes carry the span of its call, or lie outside the call's text). */
bool kl_lw_user_written(struct lw *l, const struct kl_node *n)
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
void kl_lw_warn_unused(struct lw *l, size_t mark)
{
	for (size_t i = mark; i < l->scope.len; i++) {
		const struct binding *b = &l->scope.items[i];
		if (!b->used && b->at && b->name[0] != '_')
			kl_warn(l->c->d, b->at->span, "'%s' is bound but never used (name it _%s or declare it "
				"(declare (ignore %s)) if that is meant)", b->name, b->name, b->name);
	}
}

void kl_lw_bind_typed(struct lw *l, const char *name, struct val v, bool mutable, const struct kl_type *t)
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
	kl_lw_bind_typed(l, name, v, mutable, NULL);
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

void kl_lw_arith_names(struct kl_nearest *nb)
{
	for (size_t i = 0; i < sizeof(arith_ops) / sizeof(arith_ops[0]); i++)
		kl_nearest_add(nb, arith_ops[i].name);
}

/* ---- widths and helper calls ---- */

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

kl_vreg kl_lw_call(struct lw *l, uint32_t helper, kl_vreg *args, uint32_t nargs)
{
	struct kl_ir_ins *i = emit(l, IR_CALL);
	i->imm = helper;
	i->nargs = (uint8_t)nargs;
	for (uint32_t k = 0; k < nargs; k++)
		i->args[k] = args[k];
	i->d = vreg(l);
	return i->d;
}
