/* coalesce.c — a pass of the IR optimizer (opt.c runs them): copy coalescing. */
#include "compiler/opt/passes.h"

/* `t = ...; x = t` with t read only there becomes `x = ...`: variables updated in place
 * (incf, setf of a computed value) cost one instruction, not three. */
void kl_pass_coalesce(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *uses = kl_arena_array(a, uint32_t, f->nvregs), *defs, *def_at;
	kl_opt_find_defs(a, f, &defs, &def_at);
	for (uint32_t i = 0; i < f->nins; i++)
		kl_opt_count_uses(&f->ins[i], uses, 1);
	for (uint32_t i = 1; i < f->nins; i++) {
		struct kl_ir_ins *mv = &f->ins[i], *def = &f->ins[i - 1];
		if (mv->op != IR_MOV || mv->a == mv->d || def->d != mv->a || def->op == IR_LABEL ||
		    def->op == IR_ENTRY || uses[mv->a] != 1 || defs[mv->a] != 1)
			continue;
		/* two-address ALU: the result must not overwrite its second operand first */
		if (def->op == IR_ALU && !def->has_imm && def->b == mv->d)
			continue;
		def->d = mv->d;
		mv->op = IR_LABEL;
		mv->label = 0;
	}
}
