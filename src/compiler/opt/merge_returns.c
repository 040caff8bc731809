/* merge_returns.c — a pass of the IR optimizer (opt.c runs them): equal constant returns merged. */
#include "compiler/opt/passes.h"

/* `return K` in several places: all but the last become jumps to it (a jump is one
 * instruction, `r0 = K; exit` two). */
void kl_pass_merge_returns(struct kl_arena *a, struct kl_ir_func *f)
{
	for (uint32_t i = f->nins; i-- > 0;) {
		struct kl_ir_ins *last = &f->ins[i];
		if (last->op != IR_RET || !last->has_imm)
			continue;
		int64_t k = last->imm;
		uint32_t label = 0;
		for (uint32_t j = 0; j < i; j++) {
			struct kl_ir_ins *r = &f->ins[j];
			if (r->op != IR_RET || !r->has_imm || r->imm != k)
				continue;
			if (!label) {
				label = ++f->nlabels;
				kl_opt_insert_label(a, f, i, label);   /* shifts the last return to i + 1 */
				r = &f->ins[j];
				i++;
			}
			r->op = IR_JMP;
			r->has_imm = false;
			r->label = label;
		}
	}
}
