/* swap_cmp.c — a pass of the IR optimizer (opt.c runs them): byte swaps moved into compared constants. */
#include "compiler/opt/passes.h"
#include <linux/bpf.h>

/* `x = ntohs(load16 p); if x == K` becomes `if load16 p == htons(K)`: the swap moves into
 * the constant. Equality only (byte order does not keep < and >), and only when x is read
 * by that test alone and comes straight from a load of the swap's width. */
void kl_pass_swap_cmp(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *defs, *def_at;
	uint32_t *uses = kl_arena_array(a, uint32_t, f->nvregs);
	kl_opt_find_defs(a, f, &defs, &def_at);
	for (uint32_t i = 0; i < f->nins; i++)
		kl_opt_count_uses(&f->ins[i], uses, 1);
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_ins *br = &f->ins[i];
		if (br->op != IR_BR || !br->has_imm || (br->alu != BPF_JEQ && br->alu != BPF_JNE))
			continue;
		kl_vreg x = br->a;
		if (!x || defs[x] != 1 || uses[x] != 1)
			continue;
		const struct kl_ir_ins *sw = &f->ins[def_at[x]];
		if (sw->op != IR_END || (sw->size != 16 && sw->size != 32) || !sw->a || defs[sw->a] != 1)
			continue;
		const struct kl_ir_ins *ld = &f->ins[def_at[sw->a]];
		if (ld->op != IR_LOAD || ld->size * 8 != sw->size)
			continue;
		uint64_t k = (uint64_t)br->imm, mask = sw->size == 16 ? 0xffff : 0xffffffff;
		if (k > mask || kl_bswap(k, sw->size) > INT32_MAX)
			continue;
		br->a = sw->a;
		br->imm = (int64_t)kl_bswap(k, sw->size);
	}
}
