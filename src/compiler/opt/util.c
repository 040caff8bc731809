/* util.c — what several passes share: which instructions are pure, operand use counts
 * (through ir.c's one enumeration), where each vreg is defined, and inserting a label. */
#include "compiler/opt/passes.h"
#include <string.h>

bool kl_opt_pure(uint8_t op)
{
	return op == IR_MOVI || op == IR_MOV || op == IR_ALU || op == IR_ALU32 || op == IR_NEG ||
	       op == IR_END || op == IR_LOAD || op == IR_ADDR || op == IR_LDMAP || op == IR_LDFUNC;
}

void kl_opt_count_uses(const struct kl_ir_ins *i, uint32_t *uses, int delta)
{
	struct kl_ir_operands u;
	kl_ir_operands(i, &u);
	for (uint32_t k = 0; k < u.nuses; k++)
		uses[u.uses[k]] += (uint32_t)delta;
}

/* Where each vreg is defined: how many times, and the instruction of the last one. */
void kl_opt_find_defs(struct kl_arena *a, const struct kl_ir_func *f, uint32_t **defs, uint32_t **def_at)
{
	*defs = kl_arena_array(a, uint32_t, f->nvregs);
	*def_at = kl_arena_array(a, uint32_t, f->nvregs);
	for (uint32_t i = 0; i < f->nins; i++)
		if (f->ins[i].d && f->ins[i].op != IR_LABEL) {
			(*defs)[f->ins[i].d]++;
			(*def_at)[f->ins[i].d] = i;
		}
}

void kl_opt_insert_label(struct kl_arena *a, struct kl_ir_func *f, uint32_t at, uint32_t label)
{
	if (f->nins == f->cap) {
		uint32_t nc = f->cap * 2 + 8;
		f->ins = kl_arena_grow(a, f->ins, f->cap * sizeof(*f->ins), nc * sizeof(*f->ins));
		f->cap = nc;
	}
	memmove(&f->ins[at + 1], &f->ins[at], (f->nins - at) * sizeof(*f->ins));
	memset(&f->ins[at], 0, sizeof(*f->ins));
	f->ins[at].op = IR_LABEL;
	f->ins[at].label = label;
	f->ins[at].span = f->ins[at > 0 ? at - 1 : at + 1].span;
	f->nins++;
}

void kl_opt_compact(struct kl_ir_func *f)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nins; i++)
		if (!(f->ins[i].op == IR_LABEL && f->ins[i].label == 0))
			f->ins[n++] = f->ins[i];
	f->nins = n;
}
