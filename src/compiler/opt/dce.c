/* dce.c — a pass of the IR optimizer (opt.c runs them): dead code: pure instructions whose result nobody reads. */
#include "compiler/opt/passes.h"

/* Remove pure instructions whose result nobody reads, until none is left. */
void kl_pass_dce(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *uses = kl_arena_array(a, uint32_t, f->nvregs);
	for (uint32_t i = 0; i < f->nins; i++)
		kl_opt_count_uses(&f->ins[i], uses, 1);
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t i = f->nins; i-- > 0;) {
			struct kl_ir_ins *in = &f->ins[i];
			if (kl_opt_pure(in->op) && in->d && !uses[in->d]) {
				kl_opt_count_uses(in, uses, -1);
				in->op = IR_LABEL;   /* a label nobody jumps to is a no-op */
				in->label = 0;
				changed = true;
			}
		}
	}
}
