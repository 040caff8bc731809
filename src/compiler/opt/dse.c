/* dse.c — a pass of the IR optimizer (opt.c runs it): dead stores to stack slots. A slot
 * nothing reads (no load from it, its address, if taken, only the base of stores: gvn's
 * copies leave a map key's slot so once its lookup is gone, forward a struct whose fields
 * it read back) is never stored to, directly or through its address; and a store that a
 * later store in the same block overwrites byte for byte, directly or through the slot's
 * address, with nothing between that could read it (a load of those bytes, a call, a store
 * or load through a pointer not known to be the slot's, the end of the block), goes. */
#include "compiler/opt/passes.h"
#include <string.h>

static void drop(struct kl_ir_ins *in)
{
	in->op = IR_LABEL;
	in->label = 0;
}

void kl_pass_dse(struct kl_arena *a, struct kl_ir_func *f)
{
	bool *read = kl_arena_array(a, bool, f->nslots + 1);
	uint32_t *defs, *def_at;
	kl_opt_find_defs(a, f, &defs, &def_at);
	int64_t *off_of;
	const uint32_t *slot_of = kl_opt_slot_bases(a, f, defs, &off_of);
	for (uint32_t i = 0; i < f->nins; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		if ((in->op == IR_ADDR && !slot_of[in->d]) || (in->op == IR_LOAD && !in->a) || (in->op == IR_XADD && !in->a))
			read[in->slot <= f->nslots ? in->slot : 0] = true;
		if (in->op == IR_ASM)   /* raw instructions may read any slot through r10 */
			memset(read, 1, f->nslots + 1);
		/* an address that goes anywhere but into accesses, or an access that reads */
		struct kl_ir_operands u;
		kl_ir_operands(in, &u);
		for (uint32_t k = 0; k < u.nuses; k++) {
			bool reads;
			if (slot_of[u.uses[k]] && (!kl_opt_slot_use(in, u.uses[k], slot_of, &reads) || reads))
				read[slot_of[u.uses[k]] - 1] = true;
		}
	}
	/* pending[s]: the instruction (+1) of the last store to slot s not read since, at
	 * pending_off[s] in the slot, when pgen[s] is this stretch's generation (a new one at
	 * every label, jump, call, store through a pointer and load through one not known to be
	 * a slot's). A store reaches a slot directly or through its address plus a constant. */
	uint32_t *pending = kl_arena_array(a, uint32_t, f->nslots + 1);
	int64_t *pending_off = kl_arena_array(a, int64_t, f->nslots + 1);
	uint32_t *pgen = kl_arena_array(a, uint32_t, f->nslots + 1), gen = 1;
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_ins *in = &f->ins[i];
		uint32_t s = 0;   /* the slot a load or store reaches, at offset o, when known */
		int64_t o = 0;
		if ((in->op != IR_STORE && in->op != IR_LOAD) || !kl_opt_slot_access(in, slot_of, off_of, &s, &o) ||
		    s > f->nslots)
			s = 0;
		uint32_t p = s && pgen[s] == gen ? pending[s] : 0;
		if (in->op == IR_STORE && s && !read[s]) {
			drop(in);   /* to a slot nothing reads, directly or through its address */
		} else if (in->op == IR_STORE && s) {
			if (p && pending_off[s] == o && f->ins[p - 1].size == in->size)
				drop(&f->ins[p - 1]);   /* overwritten unread */
			pending[s] = i + 1;
			pending_off[s] = o;
			pgen[s] = gen;
		} else if (in->op == IR_LOAD && s) {
			if (p && o < pending_off[s] + f->ins[p - 1].size && pending_off[s] < o + in->size)
				pending[s] = 0;
		} else if (in->op == IR_LABEL || in->op == IR_JMP || in->op == IR_BR || in->op == IR_RET ||
			   in->op == IR_CALL || in->op == IR_CALLF || in->op == IR_ASM || in->op == IR_STORE || in->op == IR_XADD ||
			   in->op == IR_LOAD) {
			gen++;
		}
	}
}
