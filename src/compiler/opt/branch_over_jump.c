/* branch_over_jump.c — a pass of the IR optimizer (opt.c runs them): branches over jumps inverted. */
#include "compiler/opt/passes.h"

/* `if C goto L1; goto L2; L1:` is `if !C goto L2`. */
void kl_pass_branch_over_jump(struct kl_arena *a, struct kl_ir_func *f)
{
	for (uint32_t i = 0; i + 2 < f->nins; i++) {
		struct kl_ir_ins *br = &f->ins[i], *j = &f->ins[i + 1];
		if (br->op != IR_BR || j->op != IR_JMP)
			continue;
		bool lands = false;
		for (uint32_t k = i + 2; k < f->nins && f->ins[k].op == IR_LABEL && !lands; k++)
			lands = f->ins[k].label == br->label;
		uint8_t c = kl_cond_invert(br->alu);
		if (!lands || !c)
			continue;
		br->alu = c;
		br->label = j->label;
		j->op = IR_LABEL;
		j->label = 0;
	}
}
