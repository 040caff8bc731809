/* unreachable.c — a pass of the IR optimizer (opt.c runs them): unreachable instructions. */
#include "compiler/opt/passes.h"

/* Drop instructions no path from the entry reaches (the verifier rejects them): what
 * follows a return, the arm of an `if` whose condition folded to a constant, ... */
void kl_pass_unreachable(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *at = kl_ir_labels(a, f);
	bool *live = kl_arena_array(a, bool, f->nins + 1);
	uint32_t *stack = kl_arena_array(a, uint32_t, f->nins + 1);
	uint32_t sp = 0;
	if (f->nins)
		stack[sp++] = 0;
	while (sp) {
		uint32_t i = stack[--sp];
		while (i < f->nins && !live[i]) {
			live[i] = true;
			const struct kl_ir_ins *in = &f->ins[i];
			if ((in->op == IR_JMP || in->op == IR_BR) && in->label <= f->nlabels && at[in->label]) {
				uint32_t t = at[in->label] - 1;
				if (!live[t])
					stack[sp++] = t;
			}
			if (in->op == IR_JMP || in->op == IR_RET)
				break;
			i++;
		}
	}
	for (uint32_t i = 0; i < f->nins; i++)
		if (!live[i]) {
			f->ins[i].op = IR_LABEL;
			f->ins[i].label = 0;
		}
}
