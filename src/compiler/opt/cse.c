/* cse.c — a pass of the IR optimizer (opt.c runs it): repeated loads within a block. A
 * load of the same size at the same base vreg and offset as an earlier one of the block,
 * with no store, atomic add or call between them and neither the base nor the earlier
 * result defined again, reads what the earlier one read: it becomes a copy of it (context
 * fields read twice, a packet byte tested in two conditions). A label ends the block: other
 * paths join there. CO-RE relocated loads are left as they are. */
#include "compiler/opt/passes.h"

struct seen {
	kl_vreg base, d;
	int32_t off;
	uint8_t size;
	uint32_t slot;
};

void kl_pass_cse(struct kl_arena *a, struct kl_ir_func *f)
{
	/* the block's loads so far (a few: a block's distinct loads are rarely many) */
	enum { MAX = 32 };
	struct seen seen[MAX];
	uint32_t n = 0;
	/* gen[v]: bumped at each definition of v; a remembered load holds while its base's
	 * and its result's generations are those it saw */
	uint32_t *gen = kl_arena_array(a, uint32_t, f->nvregs);
	uint32_t *base_gen = kl_arena_array(a, uint32_t, MAX), *d_gen = kl_arena_array(a, uint32_t, MAX);
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_ins *in = &f->ins[i];
		if (in->op == IR_LABEL || in->op == IR_STORE || in->op == IR_XADD || in->op == IR_CALL || in->op == IR_CALLF ||
		    in->op == IR_JMP || in->op == IR_RET) {
			if (in->op != IR_LABEL || in->label)
				n = 0;
		} else if (in->op == IR_LOAD && !in->core && in->d) {
			bool found = false;
			for (uint32_t k = 0; k < n && !found; k++) {
				const struct seen *s = &seen[k];
				if (s->base == in->a && s->slot == in->slot && s->off == in->off && s->size == in->size &&
				    (!s->base || gen[s->base] == base_gen[k]) && gen[s->d] == d_gen[k] && s->d != in->d) {
					in->op = IR_MOV;
					in->a = s->d;
					in->off = 0;
					in->slot = 0;
					in->size = 0;
					found = true;
				}
			}
			if (!found && n < MAX && in->a != in->d) {
				seen[n] = (struct seen){ in->a, in->d, in->off, in->size, in->slot };
				base_gen[n] = in->a ? gen[in->a] + (in->a == in->d) : 0;
				d_gen[n] = gen[in->d] + 1;
				n++;
			}
		}
		struct kl_ir_operands u;
		kl_ir_operands(in, &u);
		if (u.def)
			gen[u.def]++;
	}
}
