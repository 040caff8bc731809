/* coalesce.c — a pass of the IR optimizer (opt.c runs them): copy coalescing. */
#include "compiler/opt/passes.h"

static bool op_in_place(const struct kl_ir_ins *in)
{
	return (in->op == IR_ALU && !in->core) || in->op == IR_NEG || in->op == IR_END;
}

static bool touches(const struct kl_ir_ins *in, kl_vreg v)
{
	return kl_opt_defines(in, v) || kl_opt_reads(in, v);
}

/* `t = x OP y; ...; x = t OP2 z` with t read only there, nothing between reading or writing
 * x or t, in one block, z not x: `x = x OP y; ...; x = x OP2 z`. x is dead between (the
 * second defines it from t), so it can hold t: `(setf h (* (logxor h c) prime))` and `(setf s
 * (logand (+ s d) #xffff))` update x in place, two instructions, not four with the copies
 * in and out of t's register. */
static void in_place(struct kl_ir_func *f, const uint32_t *uses, const uint32_t *defs)
{
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_ins *a = &f->ins[i];
		kl_vreg t = a->d, x = a->a;
		if (!op_in_place(a) || !t || !x || t == x || uses[t] != 1 || defs[t] != 1)
			continue;
		for (uint32_t j = i + 1; j < f->nins && j < i + 8; j++) {
			struct kl_ir_ins *b = &f->ins[j];
			if (b->op == IR_LABEL || b->op == IR_JMP || b->op == IR_BR || b->op == IR_RET)
				break;
			if (op_in_place(b) && b->a == t && b->d == x &&
			    (b->op != IR_ALU || b->has_imm || (b->b != t && b->b != x))) {
				a->d = x;
				b->a = x;
				break;
			}
			if (touches(b, x) || touches(b, t))
				break;
		}
	}
}

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
	in_place(f, uses, defs);
}
