/* thread.c — a pass of the IR optimizer (opt.c runs them): branch threading. */
#include "compiler/opt/passes.h"
#include <linux/bpf.h>

/* Branch threading: `if a < 5 goto L ... L: if a < 9 goto M` — when the first branch is
 * taken the second one's outcome is known, so the first can go straight to M (or past the
 * second branch). Besides saving a jump, this matters to the verifier, which does not carry
 * "a != 6" from one test to the next: (when (and (= p 6) short) (return)) (when (= p 6) read)
 * is only accepted once the second test on the path where p != 6 is gone. */
static unsigned rel_mask(uint8_t cond, int *family)
{
	/* which of a<b, a==b, a>b make the branch jump; family 1 unsigned, 2 signed, 0 either */
	static const struct { uint8_t cond; unsigned mask; int family; } rel[] = {
		{ BPF_JEQ, 2, 0 }, { BPF_JNE, 5, 0 }, { BPF_JLT, 1, 1 }, { BPF_JLE, 3, 1 }, { BPF_JGT, 4, 1 },
		{ BPF_JGE, 6, 1 }, { BPF_JSLT, 1, 2 }, { BPF_JSLE, 3, 2 }, { BPF_JSGT, 4, 2 }, { BPF_JSGE, 6, 2 },
	};
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		if (rel[i].cond == cond) {
			*family = rel[i].family;
			return rel[i].mask;
		}
	return 0;
}


void kl_pass_thread(struct kl_arena *a, struct kl_ir_func *f)
{
	/* a round ends early only when a label was inserted (positions moved); a bound on the
	 * rounds keeps a cycle of branches to each other from spinning */
	for (uint32_t round = 0; round <= f->nins; round++) {
		bool changed = false;
		uint32_t *at = kl_ir_labels(a, f);
		for (uint32_t i = 0; i < f->nins; i++) {
			struct kl_ir_ins *b1 = &f->ins[i];
			if (b1->op != IR_BR || b1->label > f->nlabels || !at[b1->label])
				continue;
			uint32_t t = at[b1->label] - 1;
			while (t < f->nins && f->ins[t].op == IR_LABEL)
				t++;
			if (t >= f->nins || t == i || f->ins[t].op != IR_BR)
				continue;
			const struct kl_ir_ins *b2 = &f->ins[t];
			if (b2->a != b1->a || b2->has_imm != b1->has_imm ||
			    (b1->has_imm ? b2->imm != b1->imm : b2->b != b1->b))
				continue;
			int f1 = 0, f2 = 0;
			unsigned m1 = rel_mask(b1->alu, &f1), m2 = rel_mask(b2->alu, &f2);
			if (!m1 || !m2 || (f1 && f2 && f1 != f2))
				continue;
			if (!(m1 & ~m2) && b1->label != b2->label) {      /* taken implies taken */
				b1->label = b2->label;
				changed = true;
			} else if (!(m1 & m2)) {                          /* taken implies not taken */
				uint32_t l = ++f->nlabels;
				b1->label = l;
				kl_opt_insert_label(a, f, t + 1, l);
				changed = true;
				break;
			}
		}
		if (!changed)
			return;
	}
}
