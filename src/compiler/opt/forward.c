/* forward.c — a pass of the IR optimizer (opt.c runs it): store-to-load forwarding on the
 * stack within a block. A load of bytes one store in the same block wrote, with nothing
 * between that may write them (a store or atomic that overlaps them, one through a base
 * that is not a slot's address, a call when the slot's address went anywhere but into
 * loads and stores), is the value stored: the bytes of a constant (any part of it, little-
 * endian), or, at the same offset and size, the stored register while it still holds it
 * (truncated as the load would: a 32-bit move, a mask). What memset and memcpy of a struct
 * on the stack wrote, read back, is then known, and a variable read through its
 * stack-addr is its value. The scan looks back at most FORWARD_SCAN instructions per load. */
#include "compiler/opt/passes.h"
#include <linux/bpf.h>
#include <string.h>

#define FORWARD_SCAN 64

struct loc {
	uint32_t slot;
	int64_t off;
};

/* The slot and offset a load or store reaches: slot-based, or through a vreg defined once
 * as a slot's address, or as such a vreg plus a constant (before reassoc folds it). */
static bool where(const struct kl_ir_func *f, const uint32_t *defs, const uint32_t *def_at, const struct kl_ir_ins *in,
		  struct loc *l)
{
	if (!in->a) {
		l->slot = in->slot;
		l->off = in->off;
		return in->slot != 0;
	}
	int64_t off = in->off;
	kl_vreg b = in->a;
	for (int depth = 0; depth < 8 && b && defs[b] == 1; depth++) {
		const struct kl_ir_ins *d = &f->ins[def_at[b]];
		if (d->op == IR_ADDR) {
			l->slot = d->slot;
			l->off = off + d->off;
			return true;
		}
		if (d->op != IR_ALU || d->alu != BPF_ADD || !d->has_imm || d->core)
			return false;
		off += d->imm;   /* p = q + K */
		b = d->a;
	}
	return false;
}

static bool defines(const struct kl_ir_ins *in, kl_vreg v)
{
	struct kl_ir_operands u;
	kl_ir_operands(in, &u);
	return u.def == v;
}

/* The slots whose address goes anywhere but into the base of a load or store (a call's
 * argument, a stored value, arithmetic other than + K): a call may write those. */
static bool *escaped(struct kl_arena *a, const struct kl_ir_func *f, const uint32_t *defs)
{
	bool *esc = kl_arena_array(a, bool, f->nslots + 1);
	const uint32_t *slot_of = kl_opt_slot_bases(a, f, defs);
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_operands u;
		kl_ir_operands(&f->ins[i], &u);
		for (uint32_t k = 0; k < u.nuses; k++) {
			bool reads;
			if (slot_of[u.uses[k]] && !kl_opt_slot_use(&f->ins[i], u.uses[k], slot_of, &reads))
				esc[slot_of[u.uses[k]] - 1] = true;
		}
	}
	return esc;
}

/* The constant a store writes, if it is one: its immediate, or a register set once by a
 * constant. */
static bool stored_const(const struct kl_ir_func *f, const uint32_t *defs, const uint32_t *def_at,
			 const struct kl_ir_ins *st, int64_t *k)
{
	if (st->has_imm) {
		*k = st->imm;
		return true;
	}
	if (!st->b || defs[st->b] != 1 || f->ins[def_at[st->b]].op != IR_MOVI || f->ins[def_at[st->b]].core)
		return false;
	*k = f->ins[def_at[st->b]].imm;
	return true;
}

/* The store (its index) load i reads, all its bytes from it, or -1; *delta: where the
 * load's bytes start in the store's. */
static int64_t source(const struct kl_ir_func *f, const uint32_t *defs, const uint32_t *def_at, const bool *esc,
		      uint32_t i, int64_t *delta)
{
	const struct kl_ir_ins *ld = &f->ins[i];
	struct loc l, p;
	if (!where(f, defs, def_at, ld, &l))
		return -1;
	for (uint32_t j = i; j-- > 0 && i - j <= FORWARD_SCAN;) {
		const struct kl_ir_ins *q = &f->ins[j];
		if (q->op == IR_LABEL || q->op == IR_JMP || q->op == IR_BR || q->op == IR_RET)
			return -1;
		if ((q->op == IR_CALL || q->op == IR_CALLF) && esc[l.slot])
			return -1;   /* it may write the slot through its address */
		if (q->op != IR_STORE && q->op != IR_XADD)
			continue;
		if (!where(f, defs, def_at, q, &p))
			return -1;   /* it may write anywhere on the stack */
		if (p.slot != l.slot || p.off >= l.off + ld->size || l.off >= p.off + q->size)
			continue;
		*delta = l.off - p.off;
		return q->op == IR_STORE && p.off <= l.off && l.off + ld->size <= p.off + q->size && !q->core ? (int64_t)j
													     : -1;
	}
	return -1;
}

void kl_pass_forward(struct kl_arena *a, struct kl_ir_func *f)
{
	bool any = false;
	for (uint32_t i = 0; i < f->nins && !any; i++)
		any = f->ins[i].op == IR_STORE;
	if (!any)
		return;
	uint32_t *defs, *def_at;
	kl_opt_find_defs(a, f, &defs, &def_at);
	const bool *esc = escaped(a, f, defs);
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_ins *ld = &f->ins[i];
		if (ld->op != IR_LOAD || ld->core || !ld->d)
			continue;
		int64_t delta = 0, j = source(f, defs, def_at, esc, i, &delta), k;
		if (j < 0)
			continue;
		const struct kl_ir_ins *st = &f->ins[j];
		uint32_t size = ld->size;
		uint64_t mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
		kl_vreg d = ld->d;
		struct kl_span sp = ld->span;
		if (!st->has_imm && !st->b)
			continue;
		if (stored_const(f, defs, def_at, st, &k)) {   /* its bytes, little-endian */
			memset(ld, 0, sizeof(*ld));
			ld->op = IR_MOVI;
			ld->imm = (int64_t)(((uint64_t)k >> (8 * delta)) & mask);
		} else if (delta || size != st->size) {
			continue;
		} else {
			bool held = true;
			for (uint32_t k = (uint32_t)j + 1; k < i && held; k++)
				held = !defines(&f->ins[k], st->b);
			if (!held)
				continue;
			kl_vreg b = st->b;
			memset(ld, 0, sizeof(*ld));
			ld->a = b;
			if (size == 8) {
				ld->op = IR_MOV;
			} else if (size == 4) {
				ld->op = IR_ALU32;
				ld->alu = BPF_MOV;
			} else {
				ld->op = IR_ALU;
				ld->alu = BPF_AND;
				ld->has_imm = true;
				ld->imm = (int64_t)mask;
			}
		}
		ld->d = d;
		ld->span = sp;
	}
}
