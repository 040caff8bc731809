/* adce.c — a pass of the IR optimizer (opt.c runs it): dead definitions found on the SSA
 * form (ssa.h), mark and sweep. What has an effect is live (stores, atomics, calls, branches,
 * returns), and so is every value it reads, through the instructions and phis that compute
 * those, transitively; a pure instruction whose value nothing live reads goes. Unlike dce,
 * which counts the reads of each vreg, this sees a definition that every path overwrites or
 * leaves unread, though another definition of the same vreg is read: a variable's initial
 * value set before each branch assigns its own, a counter's last increment after the loop
 * that reads it. */
#include "compiler/opt/passes.h"
#include "compiler/ssa.h"

static void mark(const struct kl_ssa *s, bool *live, uint32_t *work, uint32_t *n, uint32_t v)
{
	if (v && !live[v]) {
		live[v] = true;
		work[(*n)++] = v;
	}
}

void kl_pass_adce(struct kl_arena *a, struct kl_ir_func *f)
{
	struct kl_ssa s;
	if (!kl_opt_ssa(a, f, &s))
		return;
	bool *live = kl_arena_array(a, bool, s.nvals);
	uint32_t *work = kl_arena_array(a, uint32_t, s.nvals), n = 0;
	for (uint32_t r = 0; r < s.cfg.nrpo; r++) {
		const struct kl_block *k = &s.cfg.blocks[s.cfg.rpo[r]];
		for (uint32_t i = k->first; i < k->end; i++) {
			const struct kl_ir_ins *in = &f->ins[i];
			if (kl_opt_pure(in->op) || in->op == IR_LABEL || in->op == IR_ENTRY)
				continue;
			for (uint32_t u = s.use_at[i]; u < s.use_at[i + 1]; u++)
				mark(&s, live, work, &n, s.use_val[u]);
		}
	}
	while (n) {
		const struct kl_val *x = &s.vals[work[--n]];
		if (x->kind == KL_VAL_INS) {
			for (uint32_t u = s.use_at[x->at]; u < s.use_at[x->at + 1]; u++)
				mark(&s, live, work, &n, s.use_val[u]);
		} else if (x->kind == KL_VAL_PHI) {
			const struct kl_phi *ph = &s.phis[x->at];
			for (uint32_t j = 0; j < s.cfg.blocks[ph->block].npred; j++)
				mark(&s, live, work, &n, ph->args[j]);
		}
	}
	for (uint32_t r = 0; r < s.cfg.nrpo; r++) {
		const struct kl_block *k = &s.cfg.blocks[s.cfg.rpo[r]];
		for (uint32_t i = k->first; i < k->end; i++) {
			struct kl_ir_ins *in = &f->ins[i];
			if (kl_opt_pure(in->op) && s.def_val[i] && !live[s.def_val[i]]) {
				in->op = IR_LABEL;
				in->label = 0;
			}
		}
	}
}
