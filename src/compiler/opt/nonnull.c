/* nonnull.c — a pass of the IR optimizer (opt.c runs it): tests of a packet pointer against
 * 0 decided. The context's packet pointers (data, data-meta, data-end: loads lowering marks
 * KL_PKT_POINTER) are never 0, nor is one plus an offset (a kernel address, far from the
 * wrap), a copy of one, or a phi of such values: `if p == 0` never jumps and `if p != 0`
 * always does. Whistler's parse helpers return `ptr or 0`, and after branch threading the
 * test of the result is of the packet pointer itself: parse-eth's when-let test, gone. */
#include "compiler/opt/passes.h"
#include "compiler/ssa.h"
#include <linux/bpf.h>

void kl_pass_nonnull(struct kl_arena *a, struct kl_ir_func *f)
{
	bool any = false;
	for (uint32_t i = 0; i < f->nins && !any; i++)
		any = f->ins[i].op == IR_LOAD && f->ins[i].bounds == KL_PKT_POINTER;
	if (!any)
		return;
	struct kl_ssa s;
	if (!kl_opt_ssa(a, f, &s))
		return;
	bool *nn = kl_arena_array(a, bool, s.nvals + 1);
	/* in reverse postorder; phis (all arguments non-null) again until nothing changes */
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t r = 0; r < s.cfg.nrpo; r++) {
			const struct kl_block *bk = &s.cfg.blocks[s.cfg.rpo[r]];
			for (uint32_t p = s.phi_at[s.cfg.rpo[r]]; p < s.phi_at[s.cfg.rpo[r] + 1]; p++) {
				bool all = bk->npred > 0;
				for (uint32_t k = 0; k < bk->npred && all; k++)
					all = nn[s.phis[p].args[k]];
				if (all && !nn[s.phis[p].val])
					nn[s.phis[p].val] = changed = true;
			}
			for (uint32_t i = bk->first; i < bk->end; i++) {
				const struct kl_ir_ins *in = &f->ins[i];
				uint32_t dv = s.def_val[i];
				if (!dv || nn[dv])
					continue;
				bool yes = (in->op == IR_LOAD && in->bounds == KL_PKT_POINTER) ||
					   (in->op == IR_MOV && nn[kl_ssa_use(&s, i, 0)]) ||
					   (in->op == IR_ALU && in->alu == BPF_ADD && !in->core &&
					    (nn[kl_ssa_use(&s, i, 0)] || (!in->has_imm && nn[kl_ssa_use(&s, i, 1)])));
				if (yes)
					nn[dv] = changed = true;
			}
		}
	}
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_ins *in = &f->ins[i];
		if (in->op != IR_BR || !in->has_imm || in->imm != 0 || in->size == 4 || !in->a ||
		    (in->alu != BPF_JEQ && in->alu != BPF_JNE) || s.cfg.block_of[i] == UINT32_MAX ||
		    s.cfg.blocks[s.cfg.block_of[i]].rpo == UINT32_MAX || !nn[kl_ssa_use(&s, i, 0)])
			continue;
		if (in->alu == BPF_JNE) {   /* always: a jump */
			uint32_t label = in->label;
			struct kl_span sp = in->span;
			*in = (struct kl_ir_ins){ .op = IR_JMP, .label = label, .span = sp };
		} else {                    /* never: nothing */
			in->op = IR_LABEL;
			in->label = 0;
		}
	}
}
