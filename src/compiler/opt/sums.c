/* sums.c — a pass of the IR optimizer (opt.c runs it): sums reassociated so that a pointer
 * plus a variable offset comes first and constants last. `t = x + K; u = p + t` becomes
 * `t = p + x; u = t + K`, and `m = x + K; t = m << S` (or `* C`) becomes `m = x << S;
 * t = m + (K << S)`, where the inner sum is read only there. `(+ data (+ 14 i))` and
 * `(+ data (* (+ i 1) 2))` then end in `data + i` or `data + 2i` plus a constant: the
 * constant folds into the accesses (reassoc), the variable sum is computed once for
 * the bounds check and the load (gvn), and the verifier, which lets a bounds check cover only
 * pointers of one id, sees the check and the load on one pointer (in a bpf_loop callback,
 * where the index is a range and not each round's constant, it needs that). The rewrites are
 * in place, within a block: the first instruction takes the second's work. */
#include "compiler/opt/passes.h"
#include "compiler/ssa.h"
#include <linux/bpf.h>

/* x + K or x - K (K a plain constant): its K as an addition. */
static bool adds_const(const struct kl_ir_ins *in, int64_t *k)
{
	if (in->op != IR_ALU || !in->has_imm || in->core || !in->a || (in->alu != BPF_ADD && in->alu != BPF_SUB))
		return false;
	*k = in->alu == BPF_ADD ? in->imm : -in->imm;
	return true;
}

/* The instruction defining value v, in block b before instruction i and read once, or -1. */
static int64_t inner(const struct kl_ssa *s, const uint32_t *uses, uint32_t v, uint32_t b, uint32_t i)
{
	if (!v || s->vals[v].kind != KL_VAL_INS || uses[v] != 1)
		return -1;
	uint32_t j = s->vals[v].at;
	return s->cfg.block_of[j] == b && j < i ? (int64_t)j : -1;
}

/* Whether value v (of vreg r) is what r holds at instruction j of block b: defined before j. */
static bool ready(const struct kl_ssa *s, uint32_t v, uint32_t b, uint32_t j)
{
	const struct kl_val *x = &s->vals[v];
	if (!v || x->kind == KL_VAL_NONE)
		return false;
	if (x->block != b)
		return true;   /* from a block that dominates this one, or a phi of this one */
	return x->kind != KL_VAL_INS || x->at < j;
}

void kl_pass_sums(struct kl_arena *a, struct kl_ir_func *f)
{
	bool any = false;
	for (uint32_t i = 0; i < f->nins && !any; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		any = in->op == IR_ALU && !in->core && ((in->alu == BPF_ADD && !in->has_imm) ||
							((in->alu == BPF_LSH || in->alu == BPF_MUL) && in->has_imm));
	}
	if (!any)
		return;
	struct kl_ssa s;
	if (!kl_opt_ssa(a, f, &s))
		return;
	const uint32_t *uses = kl_opt_value_uses(a, &s, true);
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_ins *in = &f->ins[i];
		if (in->op != IR_ALU || in->core || !in->a || !s.def_val[i])
			continue;
		uint32_t b = s.cfg.block_of[i];
		int64_t k;
		if ((in->alu == BPF_LSH || in->alu == BPF_MUL) && in->has_imm) {
			/* m = x + K; t = m << S: m = x << S; t = m + (K << S) */
			int64_t j = inner(&s, uses, kl_ssa_use(&s, i, 0), b, i);
			struct kl_ir_ins *m = j >= 0 ? &f->ins[j] : NULL;
			if (!m || !adds_const(m, &k) || m->d != in->a || (in->alu == BPF_LSH && (in->imm < 0 || in->imm > 31)))
				continue;
			int64_t c = in->alu == BPF_LSH ? INT64_C(1) << in->imm : in->imm, kc;
			if (__builtin_mul_overflow(k, c, &kc) || kc < INT32_MIN || kc > INT32_MAX)
				continue;
			m->alu = in->alu;
			m->imm = in->imm;
			in->alu = BPF_ADD;
			in->imm = kc;
			continue;
		}
		if (in->alu != BPF_ADD || in->has_imm || !in->b)
			continue;
		/* u = p + t, t = x + K: t = p + x; u = t + K (t in either operand) */
		for (int side = 0; side < 2; side++) {
			kl_vreg tr = side ? in->a : in->b, pr = side ? in->b : in->a;
			uint32_t tv = kl_ssa_use(&s, i, side ? 0 : 1), pv = kl_ssa_use(&s, i, side ? 1 : 0);
			int64_t j = inner(&s, uses, tv, b, i);
			struct kl_ir_ins *t = j >= 0 ? &f->ins[j] : NULL;
			if (!t || t->d != tr || tr == pr || !adds_const(t, &k) || k < INT32_MIN || k > INT32_MAX ||
			    !ready(&s, pv, b, (uint32_t)j) || kl_opt_set_between(f, pr, (uint32_t)j, i))
				continue;
			t->alu = BPF_ADD;
			t->has_imm = false;
			t->imm = 0;
			t->b = t->a;
			t->a = pr;
			in->a = tr;
			in->b = 0;
			in->has_imm = true;
			in->imm = k;
			break;
		}
	}
}
