/* jmp32.c — a pass of the IR optimizer (opt.c runs it): a branch on a value sign-extended
 * from 32 bits (`t = x << 32; v = t s>> 32`, what a signed 32-bit variable or field leaves)
 * compares x's low 32 bits instead, a JMP32 instruction (IR_BR of size 4), against a
 * constant of 32 signed bits (a branch's immediate is sign-extended too) or another such
 * value. It decides the same for every condition: sign extension is one to one and keeps
 * both orders (0..2^31-1 stay, 2^31..2^32-1 go above them, to the top of the 64-bit range),
 * and the bits it adds are copies of bit 31, set in both operands only where bit 31 is
 * (JSET). Only an extension that branches alone read is looked through: dce then removes
 * it, two instructions less (one kept for other readers would keep x alive beside it, a
 * register more). It runs after every pass that decides branches on constants with 64-bit
 * semantics (sccp, gvn, threading), so none of them sees a 32-bit branch. */
#include "compiler/opt/passes.h"
#include "compiler/ssa.h"
#include <linux/bpf.h>

/* The value sign-extended by the definition of value v, held in a vreg at the walk's point:
 * that vreg, or 0. */
static kl_vreg extended(const struct kl_ssa *s, const struct kl_ssa_walk *w, uint32_t v)
{
	const struct kl_ir_func *f = s->f;
	if (!v || s->vals[v].kind != KL_VAL_INS)
		return 0;
	uint32_t j = s->vals[v].at;
	const struct kl_ir_ins *sar = &f->ins[j];
	if (sar->op != IR_ALU || sar->alu != BPF_ARSH || !sar->has_imm || sar->imm != 32 || sar->core)
		return 0;
	uint32_t t = kl_ssa_use(s, j, 0);
	if (!t || s->vals[t].kind != KL_VAL_INS)
		return 0;
	uint32_t k = s->vals[t].at;
	const struct kl_ir_ins *shl = &f->ins[k];
	if (shl->op != IR_ALU || shl->alu != BPF_LSH || !shl->has_imm || shl->imm != 32 || shl->core)
		return 0;
	uint32_t x = kl_ssa_use(s, k, 0);
	return kl_ssa_holds(w, shl->a, x) ? shl->a : 0;
}

void kl_pass_jmp32(struct kl_arena *a, struct kl_ir_func *f)
{
	bool any = false;
	for (uint32_t i = 0; i < f->nins && !any; i++)
		any = f->ins[i].op == IR_ALU && f->ins[i].alu == BPF_ARSH && f->ins[i].has_imm && f->ins[i].imm == 32;
	if (!any)
		return;
	struct kl_ssa s;
	if (!kl_opt_ssa(a, f, &s))
		return;
	/* values read by anything but a branch: their extension stays, and x alive beside it
	 * would cost a register */
	const uint32_t *kept = kl_opt_value_uses(a, &s, false);
	struct kl_ssa_walk w;
	kl_ssa_walk_begin(a, &s, &w);
	for (uint32_t b; (b = kl_ssa_walk_next(&w)) != UINT32_MAX;) {
		for (uint32_t i = s.cfg.blocks[b].first; i < s.cfg.blocks[b].end; i++) {
			struct kl_ir_ins *in = &f->ins[i];
			if (in->op == IR_BR && in->size != 4 && in->a) {
				uint32_t va = kl_ssa_use(&s, i, 0), vb = in->has_imm ? 0 : kl_ssa_use(&s, i, 1);
				kl_vreg x = kept[va] ? 0 : extended(&s, &w, va), y = 0;
				bool ok = x && (in->has_imm ? in->imm >= INT32_MIN && in->imm <= INT32_MAX
						: !kept[vb] && (y = extended(&s, &w, vb)) != 0);
				if (ok) {
					in->a = x;
					if (!in->has_imm)
						in->b = y;
					in->size = 4;
				}
			}
			kl_ssa_walk_step(&w, i);
		}
	}
}
