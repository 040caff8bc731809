/* util.c — what several passes share: which instructions are pure, operand use counts
 * (through ir.c's one enumeration), where each vreg is defined, and inserting a label. */
#include "compiler/opt/passes.h"
#include "compiler/ssa.h"
#include <linux/bpf.h>
#include <string.h>

bool kl_opt_pure(uint8_t op)
{
	return op == IR_MOVI || op == IR_MOV || op == IR_ALU || op == IR_ALU32 || op == IR_NEG ||
	       op == IR_END || op == IR_LOAD || op == IR_ADDR || op == IR_LDMAP || op == IR_LDFUNC || op == IR_LDDATA;
}

bool kl_opt_reads(const struct kl_ir_ins *in, kl_vreg v)
{
	struct kl_ir_operands u;
	kl_ir_operands(in, &u);
	for (uint32_t k = 0; k < u.nuses; k++)
		if (u.uses[k] == v)
			return true;
	return false;
}

bool kl_opt_defines(const struct kl_ir_ins *in, kl_vreg v)
{
	struct kl_ir_operands u;
	kl_ir_operands(in, &u);
	return u.def == v;
}

bool kl_opt_set_between(const struct kl_ir_func *f, kl_vreg v, uint32_t from, uint32_t to)
{
	for (uint32_t k = from; k < to; k++)
		if (kl_opt_defines(&f->ins[k], v))
			return true;
	return false;
}

uint32_t *kl_opt_label_refs(struct kl_arena *a, const struct kl_ir_func *f)
{
	uint32_t *refs = kl_arena_array(a, uint32_t, f->nlabels + 1);
	for (uint32_t i = 0; i < f->nins; i++)
		if ((f->ins[i].op == IR_JMP || f->ins[i].op == IR_BR) && f->ins[i].label <= f->nlabels)
			refs[f->ins[i].label]++;
	return refs;
}

void kl_opt_count_uses(const struct kl_ir_ins *i, uint32_t *uses, int delta)
{
	struct kl_ir_operands u;
	kl_ir_operands(i, &u);
	for (uint32_t k = 0; k < u.nuses; k++)
		uses[u.uses[k]] += (uint32_t)delta;
}

/* Where each vreg is defined: how many times, and the instruction of the last one. */
void kl_opt_find_defs(struct kl_arena *a, const struct kl_ir_func *f, uint32_t **defs, uint32_t **def_at)
{
	*defs = kl_arena_array(a, uint32_t, f->nvregs);
	*def_at = kl_arena_array(a, uint32_t, f->nvregs);
	for (uint32_t i = 0; i < f->nins; i++)
		if (f->ins[i].d && f->ins[i].op != IR_LABEL) {
			(*defs)[f->ins[i].d]++;
			(*def_at)[f->ins[i].d] = i;
		}
}

void kl_opt_insert_label(struct kl_arena *a, struct kl_ir_func *f, uint32_t at, uint32_t label)
{
	if (f->nins == f->cap) {
		uint32_t nc = f->cap * 2 + 8;
		f->ins = kl_arena_grow(a, f->ins, f->cap * sizeof(*f->ins), nc * sizeof(*f->ins));
		f->cap = nc;
	}
	memmove(&f->ins[at + 1], &f->ins[at], (f->nins - at) * sizeof(*f->ins));
	memset(&f->ins[at], 0, sizeof(*f->ins));
	f->ins[at].op = IR_LABEL;
	f->ins[at].label = label;
	f->ins[at].span = f->ins[at > 0 ? at - 1 : at + 1].span;
	f->nins++;
}

void kl_opt_compact(struct kl_ir_func *f)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nins; i++)
		if (!(f->ins[i].op == IR_LABEL && f->ins[i].label == 0))
			f->ins[n++] = f->ins[i];
	f->nins = n;
}

static uint8_t bitlen(uint64_t k)
{
	uint8_t n = 0;
	while (k) {
		n++;
		k >>= 1;
	}
	return n;
}

static uint8_t min8(unsigned a, unsigned b)
{
	return (uint8_t)(a < b ? a : b);
}

uint8_t kl_opt_width(const struct kl_ssa *s, const uint8_t *w, uint32_t v)
{
	return v && s->vals[v].kind == KL_VAL_INS ? w[v] : 64;
}

/* How many low bits each value can have set: a load of N bytes is zero-extended (8N), an AND
 * with a non-negative constant fits in the constant, a right shift narrows, a left shift and
 * an addition widen, a 32-bit move fits in 32, a byte swap of 16 or 32 in those. Phis, and
 * values a loop brings back, count as 64 (one walk in reverse postorder, no fixed point). */
uint8_t *kl_opt_widths(struct kl_arena *a, const struct kl_ssa *s)
{
	const struct kl_ir_func *f = s->f;
	uint8_t *w = kl_arena_array(a, uint8_t, s->nvals + 1);
	for (uint32_t v = 0; v <= s->nvals; v++)
		w[v] = 64;
	for (uint32_t r = 0; r < s->cfg.nrpo; r++) {
		const struct kl_block *k = &s->cfg.blocks[s->cfg.rpo[r]];
		for (uint32_t i = k->first; i < k->end; i++) {
			const struct kl_ir_ins *in = &f->ins[i];
			uint32_t dv = s->def_val[i];
			if (!dv)
				continue;
			uint8_t wa = in->op == IR_MOVI || in->op == IR_LOAD || !in->a ? 64
				     : kl_opt_width(s, w, kl_ssa_use(s, i, 0));
			uint8_t wb = in->op == IR_ALU && !in->has_imm ? kl_opt_width(s, w, kl_ssa_use(s, i, 1))
				   : in->has_imm && in->imm >= 0 ? bitlen((uint64_t)in->imm) : 64;
			uint8_t x = 64;
			switch (in->op) {
			case IR_MOVI:
				x = in->core || in->imm < 0 ? 64 : bitlen((uint64_t)in->imm);
				break;
			case IR_LOAD:
				x = min8(8u * in->size, 64);
				break;
			case IR_MOV:
				x = wa;
				break;
			case IR_ALU32:
				x = min8(wa, 32);
				break;
			case IR_END:
				x = min8(in->size, 64);
				break;
			case IR_ALU:
				if (in->core)
					break;
				if (in->alu == BPF_AND)
					x = min8(wa, wb);
				else if (in->alu == BPF_OR || in->alu == BPF_XOR)
					x = wa > wb ? wa : wb;
				else if (in->alu == BPF_RSH && in->has_imm && in->imm >= 0 && in->imm < 64)
					x = wa > in->imm ? (uint8_t)(wa - in->imm) : 0;
				else if (in->alu == BPF_LSH && in->has_imm && in->imm >= 0 && in->imm < 64)
					x = min8(wa + (unsigned)in->imm, 64);
				else if (in->alu == BPF_ADD && wa < 64 && wb < 64)
					x = min8((wa > wb ? wa : wb) + 1u, 64);
				break;
			default:
				break;
			}
			w[dv] = x;
		}
	}
	return w;
}

bool kl_opt_ssa(struct kl_arena *a, const struct kl_ir_func *f, struct kl_ssa *s)
{
	kl_ssa_build(a, f, s);
	return s->cfg.nblocks != 0;
}

uint32_t *kl_opt_value_uses(struct kl_arena *a, const struct kl_ssa *s, bool branches)
{
	const struct kl_ir_func *f = s->f;
	uint32_t *uses = kl_arena_array(a, uint32_t, s->nvals + 1);
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_operands u;
		kl_ir_operands(&f->ins[i], &u);
		for (uint32_t k = 0; (branches || f->ins[i].op != IR_BR) && k < u.nuses; k++)
			uses[kl_ssa_use(s, i, k)]++;
	}
	for (uint32_t p = 0; p < s->nphis; p++)
		for (uint32_t k = 0; k < s->cfg.blocks[s->phis[p].block].npred; k++)
			uses[s->phis[p].args[k]]++;
	return uses;
}

uint32_t *kl_opt_slot_bases(struct kl_arena *a, const struct kl_ir_func *f, const uint32_t *defs, int64_t **off_of)
{
	uint32_t *slot_of = kl_arena_array(a, uint32_t, f->nvregs + 1);
	int64_t *off = kl_arena_array(a, int64_t, f->nvregs + 1);
	for (uint32_t i = 0; i < f->nins; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		if (in->op == IR_ADDR && in->d && defs[in->d] == 1) {
			slot_of[in->d] = in->slot + 1;
			off[in->d] = in->off;
		} else if (in->op == IR_ALU && in->alu == BPF_ADD && in->has_imm && in->a && slot_of[in->a] && in->d &&
			   defs[in->d] == 1 && !in->core) {
			slot_of[in->d] = slot_of[in->a];
			off[in->d] = off[in->a] + in->imm;
		}
	}
	if (off_of)
		*off_of = off;
	return slot_of;
}

bool kl_opt_jumps_out(const struct kl_ir_ins *br)
{
	uint8_t c = br->alu;
	bool gt = c == BPF_JGT || c == BPF_JGE, lt = c == BPF_JLT || c == BPF_JLE;
	return br->op == IR_BR && !br->has_imm &&
	       (br->bounds == KL_BOUNDS_END_B ? gt : br->bounds == KL_BOUNDS_END_A && lt);
}

bool kl_opt_slot_access(const struct kl_ir_ins *in, const uint32_t *slot_of, const int64_t *off_of, uint32_t *slot,
			int64_t *off)
{
	if (!in->a) {
		*slot = in->slot;
		*off = in->off;
		return in->slot != 0;
	}
	if (!slot_of[in->a])
		return false;
	*slot = slot_of[in->a] - 1;
	*off = off_of[in->a] + in->off;
	return true;
}

bool kl_opt_slot_use(const struct kl_ir_ins *in, kl_vreg v, const uint32_t *slot_of, bool *reads)
{
	*reads = in->op == IR_LOAD || in->op == IR_XADD;
	if ((in->op == IR_LOAD || in->op == IR_STORE || in->op == IR_XADD) && in->a == v &&
	    (in->op == IR_LOAD || in->has_imm || in->b != v))
		return true;   /* the base of an access */
	*reads = false;
	/* p + K, itself followed (kl_opt_slot_bases) */
	return in->op == IR_ALU && in->alu == BPF_ADD && in->has_imm && in->a == v && !in->core && slot_of[in->d];
}

const uint8_t *kl_opt_ssa_widths(struct kl_arena *a, const struct kl_ir_func *f, struct kl_ssa *s)
{
	return kl_opt_ssa(a, f, s) ? kl_opt_widths(a, s) : NULL;
}
