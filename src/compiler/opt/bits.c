/* bits.c — a pass of the IR optimizer (opt.c runs it): masks and truncations that change
 * nothing, found from how wide each SSA value can be (ssa.h). A load of N bytes is zero-
 * extended, so it fits in 8N bits; an AND with a non-negative constant fits in the constant's
 * bits; a right shift narrows, a left shift and an addition widen, a 32-bit move fits in 32,
 * a byte swap of 16 or 32 in those. Then `x & M` where M keeps every bit x can have, and the
 * 32-bit truncation of a value of at most 32 bits, are copies of x (propagate and coalesce
 * remove them): `(logand (load u16 ...) #xffff)`, what a u16 cast of a u16 field leaves. Phis
 * count as 64 bits (a loop's values would need a fixed point). */
#include "compiler/opt/passes.h"
#include "compiler/ssa.h"
#include <linux/bpf.h>

static uint8_t bitlen(uint64_t k)
{
	uint8_t n = 0;
	while (k) {
		n++;
		k >>= 1;
	}
	return n;
}

static uint8_t width(const struct kl_ssa *s, const uint8_t *w, uint32_t v)
{
	return v && s->vals[v].kind == KL_VAL_INS ? w[v] : 64;
}

static uint8_t min8(unsigned a, unsigned b)
{
	return (uint8_t)(a < b ? a : b);
}

void kl_pass_bits(struct kl_arena *a, struct kl_ir_func *f)
{
	bool any = false;   /* a mask or a truncation to look at, or nothing to do */
	for (uint32_t i = 0; i < f->nins && !any; i++)
		any = (f->ins[i].op == IR_ALU && f->ins[i].alu == BPF_AND && f->ins[i].has_imm) ||
		      (f->ins[i].op == IR_ALU32 && f->ins[i].alu == BPF_MOV);
	if (!any)
		return;
	struct kl_ssa s;
	kl_ssa_build(a, f, &s);
	if (!s.nblocks)
		return;
	uint8_t *w = kl_arena_array(a, uint8_t, s.nvals);   /* values not yet seen: 64 via width() */
	for (uint32_t v = 0; v < s.nvals; v++)
		w[v] = 64;
	for (uint32_t r = 0; r < s.nrpo; r++) {
		const struct kl_block *k = &s.blocks[s.rpo[r]];
		for (uint32_t i = k->first; i < k->end; i++) {
			struct kl_ir_ins *in = &f->ins[i];
			uint32_t dv = s.def_val[i];
			if (!dv)
				continue;
			uint8_t wa = in->op == IR_MOVI || in->op == IR_LOAD ? 64 : width(&s, w, in->a ? kl_ssa_use(&s, i, 0) : 0);
			uint8_t wb = in->op == IR_ALU && !in->has_imm ? width(&s, w, kl_ssa_use(&s, i, 1))
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
			/* what keeps every bit its operand can have is a copy of it */
			bool copy = false;
			if (in->op == IR_ALU && in->alu == BPF_AND && in->has_imm && in->imm >= 0 && !in->core && wa < 63) {
				uint64_t need = (1ull << wa) - 1;
				copy = ((uint64_t)in->imm & need) == need;
			} else if (in->op == IR_ALU32 && in->alu == BPF_MOV && wa <= 32) {
				copy = true;
			}
			if (copy) {
				in->op = IR_MOV;
				in->alu = 0;
				in->has_imm = false;
				in->imm = 0;
				in->b = 0;
			}
			w[dv] = x;
		}
	}
}
