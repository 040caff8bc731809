/* bits.c — a pass of the IR optimizer (opt.c runs it): masks and truncations that change
 * nothing, found from how wide each SSA value can be (kl_opt_widths, util.c: a load of N
 * bytes fits in 8N bits, ...). `x & M` where M keeps every bit x can have, and the
 * 32-bit truncation of a value of at most 32 bits, are copies of x (propagate and coalesce
 * remove them): `(logand (load u16 ...) #xffff)`, what a u16 cast of a u16 field leaves. Phis
 * count as 64 bits (a loop's values would need a fixed point). */
#include "compiler/opt/passes.h"
#include "compiler/ssa.h"
#include <linux/bpf.h>

void kl_pass_bits(struct kl_arena *a, struct kl_ir_func *f)
{
	bool any = false;   /* a mask or a truncation to look at, or nothing to do */
	for (uint32_t i = 0; i < f->nins && !any; i++)
		any = (f->ins[i].op == IR_ALU && f->ins[i].alu == BPF_AND && f->ins[i].has_imm) ||
		      (f->ins[i].op == IR_ALU32 && f->ins[i].alu == BPF_MOV);
	struct kl_ssa s;
	const uint8_t *w = any ? kl_opt_ssa_widths(a, f, &s) : NULL;
	if (!w)
		return;
	for (uint32_t r = 0; r < s.cfg.nrpo; r++) {
		const struct kl_block *k = &s.cfg.blocks[s.cfg.rpo[r]];
		for (uint32_t i = k->first; i < k->end; i++) {
			struct kl_ir_ins *in = &f->ins[i];
			if (!s.def_val[i] || !in->a)
				continue;
			uint8_t wa = kl_opt_width(&s, w, kl_ssa_use(&s, i, 0));
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
		}
	}
}
