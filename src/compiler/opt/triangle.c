/* triangle.c — a pass of the IR optimizer (opt.c runs it): a choice between a computed value
 * and a constant made without the jump over the constant. `if C goto A; d = X; goto L;
 * A: d = K; L:` (what `(getmap m k)` leaves: the value, or 0 when the lookup found nothing)
 * becomes `d = K; if C goto L; d = X; L:`, and `if C goto A; d = K; goto L; A: d = X; L:`
 * becomes `d = K; if !C goto L; d = X; L:`. One instruction less, and on each path as many
 * run as before. The constant moves before the branch, so neither the branch nor X may read
 * d, and A must be the branch's alone. X a copy is left as it is: the allocator can
 * coalesce it while the arms stay apart (queue-stack: `p ? p : 0` tested at once, 195
 * processed as it is, 231 as a triangle). */
#include "compiler/opt/passes.h"

static bool reads(const struct kl_ir_ins *in, kl_vreg v)
{
	struct kl_ir_operands u;
	kl_ir_operands(in, &u);
	for (uint32_t k = 0; k < u.nuses; k++)
		if (u.uses[k] == v)
			return true;
	return false;
}

static bool constant(const struct kl_ir_ins *in, kl_vreg d)
{
	return in->op == IR_MOVI && in->d == d && !in->core;
}

void kl_pass_triangle(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *refs = kl_arena_array(a, uint32_t, f->nlabels + 1);
	for (uint32_t i = 0; i < f->nins; i++)
		if ((f->ins[i].op == IR_JMP || f->ins[i].op == IR_BR) && f->ins[i].label <= f->nlabels)
			refs[f->ins[i].label]++;
	for (uint32_t i = 0; i + 5 < f->nins; i++) {
		struct kl_ir_ins *br = &f->ins[i], *p = &f->ins[i + 1], *j = &f->ins[i + 2], *la = &f->ins[i + 3],
				 *q = &f->ins[i + 4], *ll = &f->ins[i + 5];
		if (br->op != IR_BR || j->op != IR_JMP || la->op != IR_LABEL || la->label != br->label ||
		    br->label > f->nlabels || refs[br->label] != 1 || ll->op != IR_LABEL || ll->label != j->label ||
		    !p->d || p->d != q->d || p->op == IR_LABEL || q->op == IR_LABEL)
			continue;
		kl_vreg d = p->d;
		struct kl_ir_ins k, x;
		uint8_t cond = br->alu;
		if (constant(q, d) && kl_opt_pure(p->op)) {
			k = *q, x = *p;                       /* if C then K else X */
		} else if (constant(p, d) && kl_opt_pure(q->op) && kl_cond_invert(cond)) {
			k = *p, x = *q;                       /* if C then X else K */
			cond = kl_cond_invert(cond);
		} else {
			continue;
		}
		if (reads(br, d) || reads(&x, d) || x.op == IR_MOV)
			continue;
		struct kl_ir_ins b = *br;
		b.alu = cond;
		b.label = j->label;
		refs[br->label]--;
		f->ins[i] = k;
		f->ins[i + 1] = b;
		f->ins[i + 2] = x;
		la->label = 0;                             /* A, the jump and the second arm go */
		q->op = IR_LABEL;
		q->label = 0;
		i += 5;
	}
}
