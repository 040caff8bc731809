/* reassoc.c — a pass of the IR optimizer (opt.c runs it): constant offsets chained. An
 * addition of a constant to a value that is itself another value plus a constant,
 * `t = p + 14; u = t + 20`, becomes `u = p + 34` where p still holds what t was computed
 * from (the SSA form's dominator-tree walk says so): one add where there were two, and t
 * dead when nothing else reads it (dce). Header offsets over a packet pointer take this
 * shape, as each parser step adds its own. Subtractions of constants count as additions of
 * their negation; CO-RE relocated offsets are never touched. */
#include "compiler/opt/passes.h"
#include "compiler/ssa.h"
#include <linux/bpf.h>

/* The constant instruction in adds to its first operand, if it adds one. */
static bool adds_const(const struct kl_ir_ins *in, int64_t *k)
{
	if (in->op != IR_ALU || !in->has_imm || in->core || (in->alu != BPF_ADD && in->alu != BPF_SUB))
		return false;
	*k = in->alu == BPF_ADD ? in->imm : -in->imm;
	return true;
}

void kl_pass_reassoc(struct kl_arena *a, struct kl_ir_func *f)
{
	/* nothing to do (the usual case) without an added constant whose operand some added
	 * constant defines: a linear look before the SSA form is built */
	bool *added = kl_arena_array(a, bool, f->nvregs + 1), any = false;
	int64_t k;
	for (uint32_t i = 0; i < f->nins && !any; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		bool access = (in->op == IR_LOAD || in->op == IR_STORE || in->op == IR_XADD) && !in->core;
		if ((adds_const(in, &k) || access) && in->a && in->a < f->nvregs && added[in->a])
			any = true;
		if (adds_const(in, &k) && in->d < f->nvregs)
			added[in->d] = true;
	}
	if (!any)
		return;
	struct kl_ssa s;
	if (!kl_opt_ssa(a, f, &s))
		return;
	/* per instruction rewritten here: the value its first operand reads now (chains: v = u + 1
	 * after u = t + 2 after t = p + 3 is v = p + 6) */
	uint32_t *now = kl_arena_array(a, uint32_t, f->nins);
	struct kl_ssa_walk w;
	kl_ssa_walk_begin(a, &s, &w);
	for (uint32_t b; (b = kl_ssa_walk_next(&w)) != UINT32_MAX;) {
		for (uint32_t i = s.cfg.blocks[b].first; i < s.cfg.blocks[b].end; i++) {
			struct kl_ir_ins *in = &f->ins[i];
			int64_t k2 = 0, k1 = 0;
			uint32_t tv = in->a ? kl_ssa_use(&s, i, 0) : 0;
			if ((in->op == IR_LOAD || in->op == IR_STORE || in->op == IR_XADD) && !in->core && tv &&
			    s.vals[tv].kind == KL_VAL_INS) {
				/* an access through t = p + K: through p, K in its offset (`ip = data + 14;
				 * (load u8 ip 9)` is one load at data + 23, and ip usually dies) */
				uint32_t at = s.vals[tv].at;
				const struct kl_ir_ins *t = &f->ins[at];
				uint32_t xv = now[at] ? now[at] : t->a ? kl_ssa_use(&s, at, 0) : 0;
				int64_t off;
				if (adds_const(t, &k1) && xv && kl_ssa_holds(&w, t->a, xv) &&
				    !__builtin_add_overflow((int64_t)in->off, k1, &off) && off >= INT16_MIN && off <= INT16_MAX) {
					in->a = t->a;
					in->off = (int32_t)off;
				}
			} else if (adds_const(in, &k2) && tv && s.vals[tv].kind == KL_VAL_INS) {
				uint32_t at = s.vals[tv].at;
				const struct kl_ir_ins *t = &f->ins[at];
				uint32_t xv = now[at] ? now[at] : t->a ? kl_ssa_use(&s, at, 0) : 0;
				int64_t sum;
				if (adds_const(t, &k1) && xv && kl_ssa_holds(&w, t->a, xv) && !__builtin_add_overflow(k1, k2, &sum) &&
				    sum >= INT32_MIN && sum <= INT32_MAX) {
					in->a = t->a;   /* (the walk's facts are the SSA values': still true) */
					in->alu = BPF_ADD;
					in->imm = sum;
					now[i] = xv;
				}
			}
			kl_ssa_walk_step(&w, i);
		}
	}
}
