/* idle_exit.c — a pass of the IR optimizer (opt.c runs it): a loop that idles once its guard
 * fails leaves instead. The shape (what rotate makes of a dotimes whose body is one `when`):
 *
 *     H: if g <cond> K goto T      the guard, first in the loop
 *        ...body...
 *     T: i = i + 1                 the latch: only the counter changes
 *        if i < N goto H
 *     X:
 *
 * When the guard jumps to T, nothing changed in the round, and nothing will change in the
 * rounds after (the latch sets only i, which the guard does not read): they all go to T
 * until i reaches N. So the guard may jump to X at once, where i is not read: nothing
 * outside the loop reads i. big-dns's 48-byte name scan idled after the name ended, two
 * taken branches a round. */
#include "compiler/opt/passes.h"
#include "compiler/cfg.h"
#include <linux/bpf.h>

void kl_pass_idle_exit(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *label_at = kl_ir_labels(a, f);   /* instruction + 1 */
	/* where each vreg is read: the first and last instruction */
	uint32_t *first_read = kl_arena_array(a, uint32_t, f->nvregs + 1), *last_read = kl_arena_array(a, uint32_t, f->nvregs + 1);
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_operands u;
		kl_ir_operands(&f->ins[i], &u);
		for (uint32_t k = 0; k < u.nuses; k++) {
			kl_vreg v = u.uses[k];
			if (v >= f->nvregs)
				continue;
			if (!first_read[v])
				first_read[v] = i + 1;
			last_read[v] = i + 1;
		}
	}
	/* (the guards it turns jump forward before and after: the back jumps stay) */
	struct kl_cfg c;
	kl_cfg_build(a, f, &c);
	struct kl_back_jump *bj;
	uint32_t nbj = kl_cfg_loop_jumps(a, &c, &bj);
	for (uint32_t k = 0; k < nbj; k++) {
		uint32_t j = bj[k].jump, h = bj[k].head;   /* the latch's branch, the head's label */
		struct kl_ir_ins *back = &f->ins[j];
		if (j + 1 >= f->nins || back->op != IR_BR || !back->has_imm || back->alu != BPF_JLT)
			continue;
		kl_vreg i = back->a;
		/* the latch: back from j, labels and i = i + K only */
		uint32_t t = j;
		while (t > h + 1 && (f->ins[t - 1].op == IR_LABEL ||
				     (f->ins[t - 1].op == IR_ALU && f->ins[t - 1].d == i && f->ins[t - 1].a == i &&
				      f->ins[t - 1].has_imm)))
			t--;
		/* the guard: the first instruction after the head's labels */
		uint32_t gi = h;
		while (gi < t && f->ins[gi].op == IR_LABEL)
			gi++;
		struct kl_ir_ins *guard = &f->ins[gi];
		if (gi >= t || guard->op != IR_BR || guard->label > f->nlabels || !label_at[guard->label])
			continue;
		uint32_t target = label_at[guard->label] - 1;
		if (target < t || target >= j || guard->a == i || (!guard->has_imm && guard->b == i))
			continue;
		/* i read only inside the loop; a label right after it to leave to */
		if (!first_read[i] || first_read[i] - 1 < h || last_read[i] - 1 > j)
			continue;
		if (f->ins[j + 1].op != IR_LABEL || !f->ins[j + 1].label)
			continue;
		guard->label = f->ins[j + 1].label;
	}
}
