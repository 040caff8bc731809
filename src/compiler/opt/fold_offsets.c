/* fold_offsets.c — a pass of the IR optimizer (opt.c runs them): constant offsets folded into memory accesses. */
#include "compiler/opt/passes.h"
#include <linux/bpf.h>

/* `p = q + K` used as the base of loads, stores and further `+ K2`: those use q with the
 * offset folded in, so `ip = data + 14; (load u8 ip 9)` is one load at data + 23 and p
 * usually dies. Only single-definition vregs: their value is the same at every use. */
void kl_pass_fold_offsets(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *defs, *def_at;
	kl_opt_find_defs(a, f, &defs, &def_at);
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_ins *in = &f->ins[i];
		bool mem = in->op == IR_LOAD || in->op == IR_STORE || in->op == IR_XADD;
		bool add = in->op == IR_ALU && in->alu == BPF_ADD && in->has_imm;
		kl_vreg p = in->a;
		if ((!mem && !add) || !p || defs[p] != 1 || in->core)
			continue;
		const struct kl_ir_ins *def = &f->ins[def_at[p]];
		if (def->core || def->op != IR_ALU || def->alu != BPF_ADD || !def->has_imm || !def->a || defs[def->a] != 1 ||
		    def_at[p] >= i)
			continue;
		int64_t k = (mem ? in->off : in->imm) + def->imm;
		if (mem ? (k < INT16_MIN || k > INT16_MAX) : (k < INT32_MIN || k > INT32_MAX))
			continue;
		in->a = def->a;
		if (mem)
			in->off = (int32_t)k;
		else
			in->imm = k;
	}
}
