/* forward.c — a pass of the IR optimizer (opt.c runs it): store-to-load forwarding on the
 * stack. A load of bytes one store wrote, on every path to it, with nothing between that may
 * write them (a store or atomic that overlaps them, one through a base that is not a slot's
 * address, a call when the slot's address went anywhere but into loads and stores), is the
 * value stored: the bytes of a constant (any part of it, little-endian), or, at the same
 * offset and size, the stored register while it still holds it (truncated as the load
 * would: a 32-bit move, a mask). What memset and memcpy of a struct on the stack wrote, read
 * back, is then known, and a variable read through its stack-addr is its value. The scan
 * goes back from the load at most FORWARD_SCAN instructions, across labels when every jump
 * to them is met on the way (forward code: a map lookup's null test and the like, which
 * wh-packet's scratch struct sits across); a jump from outside the stretch, a loop's among
 * them, stops it. */
#include "compiler/opt/passes.h"
#include <linux/bpf.h>
#include <string.h>

#define FORWARD_SCAN 128
#define FORWARD_NEAR 64   /* a register forwarded from at most this far back */

struct loc {
	uint32_t slot;
	int64_t off;
};

/* Where a load or store reaches: a slot and an offset in it, directly or through a slot's
 * address (kl_opt_slot_bases: before reassoc folds the constants in). */
struct slots {
	const uint32_t *slot_of;
	const int64_t *off_of;
	const bool *escaped;      /* per slot: its address goes elsewhere, where a call may write it */
	const uint32_t *refs;     /* per label: the jumps to it */
	uint32_t *passed, stamp;  /* per label: == stamp when this load's scan went past it */
	bool passed_any;          /* this load's scan went past a label others jump to, or a store
				   * through another pointer: a register would be kept across them */
};

static bool where(const struct slots *sl, const struct kl_ir_ins *in, struct loc *l)
{
	return kl_opt_slot_access(in, sl->slot_of, sl->off_of, &l->slot, &l->off);
}

/* The slots whose address goes anywhere but into the base of a load or store (a call's
 * argument, a stored value, arithmetic other than + K): a call may write those. */
static bool *escaped(struct kl_arena *a, const struct kl_ir_func *f, const uint32_t *slot_of)
{
	bool *esc = kl_arena_array(a, bool, f->nslots + 1);
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
 * load's bytes start in the store's. Labels passed add the jumps to them that must be met
 * before the store (pending): only then did every path come through it. */
static int64_t source(const struct kl_ir_func *f, struct slots *sl, uint32_t i, int64_t *delta, bool *crossed)
{
	const struct kl_ir_ins *ld = &f->ins[i];
	struct loc l, p;
	if (!where(sl, ld, &l))
		return -1;
	uint32_t pending = 0;
	sl->stamp++;
	sl->passed_any = false;
	for (uint32_t j = i; j-- > 0 && i - j <= FORWARD_SCAN;) {
		const struct kl_ir_ins *q = &f->ins[j];
		if (q->op == IR_LABEL) {
			if (q->label && q->label <= f->nlabels && sl->refs[q->label]) {
				pending += sl->refs[q->label];
				sl->passed[q->label] = sl->stamp;
				sl->passed_any = true;
			}
			continue;
		}
		if (q->op == IR_JMP || q->op == IR_BR) {
			if (q->label <= f->nlabels && sl->passed[q->label] == sl->stamp)
				pending--;   /* one of the ways in, met */
			continue;
		}
		if (q->op == IR_RET)
			continue;   /* (what follows it is entered by a label) */
		if (((q->op == IR_CALL || q->op == IR_CALLF) && sl->escaped[l.slot]) || q->op == IR_ASM)
			return -1;   /* it may write the slot through its address (asm: through r10 too) */
		if (q->op != IR_STORE && q->op != IR_XADD)
			continue;
		if (!where(sl, q, &p)) {
			if (sl->escaped[l.slot])
				return -1;   /* it may write anywhere on the stack */
			sl->passed_any = true;   /* (far enough: only a constant is worth forwarding) */
			continue;   /* no pointer but the slot's own reaches a slot that did not escape */
		}
		if (p.slot != l.slot || p.off >= l.off + ld->size || l.off >= p.off + q->size)
			continue;
		*delta = l.off - p.off;
		*crossed = sl->passed_any || i - j > FORWARD_NEAR;
		return !pending && q->op == IR_STORE && p.off <= l.off && l.off + ld->size <= p.off + q->size && !q->core
			       ? (int64_t)j : -1;
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
	struct slots sl;
	int64_t *off_of;
	sl.slot_of = kl_opt_slot_bases(a, f, defs, &off_of);
	sl.off_of = off_of;
	sl.escaped = escaped(a, f, sl.slot_of);
	sl.refs = kl_opt_label_refs(a, f);
	sl.passed = kl_arena_array(a, uint32_t, f->nlabels + 1);
	sl.stamp = 0;
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_ins *ld = &f->ins[i];
		if (ld->op != IR_LOAD || ld->core || !ld->d)
			continue;
		bool crossed = false;
		int64_t delta = 0, j = source(f, &sl, i, &delta, &crossed), k;
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
		} else if (delta || size != st->size || crossed) {
			continue;   /* (a register kept across other paths costs more than the load) */
		} else {
			if (kl_opt_set_between(f, st->b, (uint32_t)j + 1, i))
				continue;   /* the register no longer holds what was stored */
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
