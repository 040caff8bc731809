/* thread_const.c — a pass of the IR optimizer (opt.c runs it): jumps threaded through a test
 * of the constant they bring. `v = K; goto L` where L is only a test of v against an
 * immediate (`L: if v == 0 goto X`) decides that test: the jump goes to X, or past the test
 * when a label already stands there. What a parser helper returns, `ptr or 0`, tested at once
 * by its caller, leaves this shape: the path that set 0 no longer walks the test (nor, once
 * dead, the `v = 0`: adce), and the test keeps only the path with a pointer. */
#include "compiler/opt/passes.h"

void kl_pass_thread_const(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *at = kl_ir_labels(a, f);
	for (uint32_t i = 1; i < f->nins; i++) {
		struct kl_ir_ins *j = &f->ins[i];
		const struct kl_ir_ins *k = &f->ins[i - 1];
		if (j->op != IR_JMP || j->label > f->nlabels || !at[j->label] || k->op != IR_MOVI || k->core || !k->d)
			continue;
		uint32_t h = at[j->label] - 1;
		while (h < f->nins && f->ins[h].op == IR_LABEL)
			h++;
		if (h >= f->nins)
			continue;
		const struct kl_ir_ins *t = &f->ins[h];
		if (t->op != IR_BR || !t->has_imm || t->a != k->d)
			continue;
		int taken = kl_cond_holds(t->alu, k->imm, t->imm);
		if (taken == 1) {
			j->label = t->label;
		} else if (taken == 0 && h + 1 < f->nins && f->ins[h + 1].op == IR_LABEL && f->ins[h + 1].label) {
			j->label = f->ins[h + 1].label;
		}
	}
}
