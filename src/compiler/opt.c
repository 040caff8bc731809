/* opt.c — IR passes, each one small and switchable (-O0 runs none): dead code removal,
 * unreachable code after jumps and returns, and copies into variables coalesced. */
#include "opt.h"
#include <string.h>

static bool pure(uint8_t op)
{
	return op == IR_MOVI || op == IR_MOV || op == IR_ALU || op == IR_ALU32 || op == IR_NEG ||
	       op == IR_END || op == IR_LOAD || op == IR_ADDR || op == IR_LDMAP;
}

static void count_uses(const struct kl_ir_ins *i, uint32_t *uses, int delta)
{
	switch (i->op) {
	case IR_MOV: case IR_ALU32: case IR_NEG: case IR_END:
		uses[i->a] += (uint32_t)delta;
		break;
	case IR_ALU:
		uses[i->a] += (uint32_t)delta;
		if (!i->has_imm)
			uses[i->b] += (uint32_t)delta;
		break;
	case IR_LOAD: case IR_STORE: case IR_XADD: case IR_BR: case IR_RET:
		if (i->a)
			uses[i->a] += (uint32_t)delta;
		if (i->op != IR_LOAD && i->op != IR_RET && !i->has_imm && i->b)
			uses[i->b] += (uint32_t)delta;
		break;
	case IR_CALL: case IR_CALLF:
		for (uint32_t k = 0; k < i->nargs; k++)
			uses[i->args[k]] += (uint32_t)delta;
		break;
	default:
		break;
	}
}

/* Remove pure instructions whose result nobody reads, until none is left. */
static void pass_dce(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *uses = kl_arena_array(a, uint32_t, f->nvregs);
	for (uint32_t i = 0; i < f->nins; i++)
		count_uses(&f->ins[i], uses, 1);
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t i = f->nins; i-- > 0;) {
			struct kl_ir_ins *in = &f->ins[i];
			if (pure(in->op) && in->d && !uses[in->d]) {
				count_uses(in, uses, -1);
				in->op = IR_LABEL;   /* a label nobody jumps to is a no-op */
				in->label = 0;
				changed = true;
			}
		}
	}
}

/* `t = ...; x = t` with t read only there becomes `x = ...`: variables updated in place
 * (incf, setf of a computed value) cost one instruction, not three. */
static void pass_coalesce(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *uses = kl_arena_array(a, uint32_t, f->nvregs);
	uint32_t *defs = kl_arena_array(a, uint32_t, f->nvregs);
	for (uint32_t i = 0; i < f->nins; i++) {
		count_uses(&f->ins[i], uses, 1);
		if (f->ins[i].d && f->ins[i].op != IR_LABEL)
			defs[f->ins[i].d]++;
	}
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

/* Drop instructions no path from the entry reaches (the verifier rejects them): what
 * follows a return, the arm of an `if` whose condition folded to a constant, ... */
static void pass_unreachable(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *at = kl_arena_array(a, uint32_t, f->nlabels + 2);
	for (uint32_t i = 0; i < f->nins; i++)
		if (f->ins[i].op == IR_LABEL && f->ins[i].label)
			at[f->ins[i].label] = i;
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
			if (in->op == IR_JMP || in->op == IR_BR) {
				uint32_t t = at[in->label];
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

/* Compact away the no-op labels left by the passes. */
static void compact(struct kl_ir_func *f)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nins; i++)
		if (!(f->ins[i].op == IR_LABEL && f->ins[i].label == 0))
			f->ins[n++] = f->ins[i];
	f->nins = n;
}

void kl_opt(struct kl_arena *a, struct kl_ir_func *f, int level)
{
	/* not an optimisation: the kernel refuses unreachable instructions, so this runs at -O0 too */
	pass_unreachable(a, f);
	compact(f);
	if (level <= 0)
		return;
	pass_dce(a, f);
	compact(f);
	pass_coalesce(a, f);
	compact(f);
}
