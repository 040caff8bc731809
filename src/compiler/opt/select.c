/* select.c — a pass of the IR optimizer (opt.c runs it): comparisons as values, without a
 * branch. A comparison used as a number is lowered `d = 1; if COND goto L; d = 0; L:`; where
 * its operands are known to fit in 62 bits (kl_opt_widths: a u32 load, a masked value, a
 * small constant), the sign of a subtraction says it instead: `a < b` is `(a - b) >> 63`,
 * `a >= b` that xor 1, `a > b` and `a <= b` the same with the operands swapped, `a == 0`
 * is `(a - 1) >> 63`, `a != 0` is `(-a) >> 63`. The same count of instructions or one more,
 * but no branch: the verifier walks one path where it walked two, and every comparison
 * after it no longer doubles the paths. Signed conditions on such values are the unsigned
 * ones. */
#include "compiler/opt/passes.h"
#include "compiler/ssa.h"
#include <linux/bpf.h>

static uint8_t unsigned_of(uint8_t cond)
{
	switch (cond) {
	case BPF_JSLT: return BPF_JLT;
	case BPF_JSLE: return BPF_JLE;
	case BPF_JSGT: return BPF_JGT;
	case BPF_JSGE: return BPF_JGE;
	default: return cond;
	}
}

static void set(struct kl_ir_ins *in, uint8_t op, uint8_t alu, kl_vreg d, kl_vreg a, kl_vreg b, bool has_imm,
		int64_t imm)
{
	struct kl_span sp = in->span;
	*in = (struct kl_ir_ins){ .op = op, .alu = alu, .d = d, .a = a, .b = b, .has_imm = has_imm, .imm = imm,
				  .span = sp };
}

/* Whether instructions i..i+3 are `d = 1|0; if COND goto L; d = 0|1; L:`, L reached from
 * that branch alone (refs: how many jumps name each label), the branch not reading d. */
static bool shape(const struct kl_ir_func *f, const uint32_t *refs, uint32_t i)
{
	const struct kl_ir_ins *k1 = &f->ins[i], *br = &f->ins[i + 1], *k2 = &f->ins[i + 2], *lab = &f->ins[i + 3];
	return k1->op == IR_MOVI && br->op == IR_BR && k2->op == IR_MOVI && lab->op == IR_LABEL &&
	       lab->label == br->label && refs[br->label] == 1 && k1->d == k2->d && !k1->core && !k2->core &&
	       ((k1->imm == 1 && k2->imm == 0) || (k1->imm == 0 && k2->imm == 1)) && br->a && br->a != k1->d &&
	       (br->has_imm || br->b != k1->d);
}

void kl_pass_select(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *refs = kl_opt_label_refs(a, f);
	bool any = false;   /* the SSA form only where there is something to look at */
	for (uint32_t i = 0; i + 3 < f->nins && !any; i++)
		any = shape(f, refs, i);
	struct kl_ssa s;
	const uint8_t *w = any ? kl_opt_ssa_widths(a, f, &s) : NULL;
	if (!w)
		return;
	for (uint32_t i = 0; i + 3 < f->nins; i++) {
		struct kl_ir_ins *k1 = &f->ins[i], *br = &f->ins[i + 1], *k2 = &f->ins[i + 2];
		const struct kl_ir_ins *lab = &f->ins[i + 3];
		if (!shape(f, refs, i) || s.cfg.blocks[s.cfg.block_of[i]].rpo == UINT32_MAX)
			continue;
		/* both operands within 62 bits (their difference's sign is the comparison) */
		if (kl_opt_width(&s, w, kl_ssa_use(&s, i + 1, 0)) > 62)
			continue;
		if (br->has_imm ? br->imm < 0 || br->imm > INT32_MAX - 1
				: kl_opt_width(&s, w, kl_ssa_use(&s, i + 1, 1)) > 62)
			continue;
		/* d = COND where the branch is taken with k1's value */
		uint8_t cond = unsigned_of(k1->imm == 1 ? br->alu : kl_cond_invert(br->alu));
		kl_vreg d = k1->d, x = br->a, y = br->b;
		int64_t imm = br->imm;
		bool hi = br->has_imm;
		bool flip = false;   /* xor 1 at the end */
		switch (cond) {   /* everything as `x < y` (y may be an immediate), maybe flipped */
		case BPF_JLT:
			break;
		case BPF_JGE:
			flip = true;
			break;
		case BPF_JGT:   /* y < x; with an immediate: !(x < K + 1) */
			if (hi)
				imm += 1, flip = true;
			else
				x = br->b, y = br->a;
			break;
		case BPF_JLE:   /* !(y < x); with an immediate: x < K + 1 */
			if (hi)
				imm += 1;
			else
				x = br->b, y = br->a, flip = true;
			break;
		case BPF_JEQ: case BPF_JNE:
			if (!hi || imm != 0)
				continue;
			break;
		default:
			continue;
		}
		if (cond == BPF_JEQ) {          /* (x - 1) >> 63 */
			set(k1, IR_ALU, BPF_ADD, d, x, 0, true, -1);
		} else if (cond == BPF_JNE) {   /* (-x) >> 63 */
			set(k1, IR_NEG, 0, d, x, 0, false, 0);
		} else if (hi) {                /* (x - K) >> 63 */
			set(k1, IR_ALU, BPF_ADD, d, x, 0, true, -imm);
		} else {                        /* (x - y) >> 63 */
			set(k1, IR_ALU, BPF_SUB, d, x, y, false, 0);
		}
		set(br, IR_ALU, BPF_RSH, d, d, 0, true, 63);
		if (flip)
			set(k2, IR_ALU, BPF_XOR, d, d, 0, true, 1);
		else
			set(k2, IR_LABEL, 0, 0, 0, 0, false, 0);
		refs[lab->label]--;
		i += 3;
	}
}
