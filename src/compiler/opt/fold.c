/* fold.c — a pass of the IR optimizer (opt.c runs it): constants folded within each basic
 * block. Walking a block in order, a vreg is a known constant from `v = K` (not a CO-RE
 * relocated K) until it is defined again; an operation on known operands becomes `v = K'`
 * (computed as the BPF machine computes it: kl_fold), a known second operand an
 * immediate, and a branch on known operands a jump or nothing. At a label, where other paths
 * join, nothing is known. A variable updated in straight-line code, as an unrolled loop
 * leaves it (`s = 0; s += 0; s += 1; ...`), becomes one constant. A pure definition that
 * the same block overwrites before anything reads it goes (dead stores to a vreg set more
 * than once, which dce, counting reads per vreg, keeps). dce and unreachable clean up after. */
#include "compiler/opt/passes.h"
#include <linux/bpf.h>

static bool alu_folds(uint8_t alu)
{
	switch (alu) {
	case BPF_ADD: case BPF_SUB: case BPF_MUL: case BPF_DIV: case BPF_MOD: case BPF_AND: case BPF_OR:
	case BPF_XOR: case BPF_LSH: case BPF_RSH: case BPF_ARSH:
		return true;
	default:
		return false;
	}
}

static void to_const(struct kl_ir_ins *in, int64_t v)
{
	in->op = IR_MOVI;
	in->imm = v;
	in->has_imm = true;
	in->a = in->b = 0;
	in->alu = 0;
	in->size = 0;
}

void kl_pass_fold(struct kl_arena *a, struct kl_ir_func *f)
{
	/* known[v] == gen: v holds val[v] here; a label starts a new generation */
	uint32_t *known = kl_arena_array(a, uint32_t, f->nvregs);
	int64_t *val = kl_arena_array(a, int64_t, f->nvregs);
	/* pending[v] == i + 1 (in this generation, pgen[v] == gen): instruction i defined v
	 * and nothing read it yet; a second definition makes the first dead if it was pure */
	uint32_t *pending = kl_arena_array(a, uint32_t, f->nvregs);
	uint32_t *pgen = kl_arena_array(a, uint32_t, f->nvregs);
	uint32_t gen = 1, pg = 1;   /* pg: pending's generation, new at every branch too (the
				    * other path may read the first definition) */
#define KNOWN(v) ((v) && known[(v)] == gen)
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_ins *in = &f->ins[i];
		switch (in->op) {
		case IR_LABEL:
			if (in->label)
				gen++, pg++;
			continue;
		case IR_ALU:
			if (!in->core && alu_folds(in->alu) && KNOWN(in->a) && (in->has_imm || KNOWN(in->b)))
				to_const(in, kl_fold(in->alu, val[in->a], in->has_imm ? in->imm : val[in->b]));
			else if (!in->has_imm && KNOWN(in->b) && val[in->b] >= INT32_MIN && val[in->b] <= INT32_MAX) {
				in->imm = val[in->b];
				in->has_imm = true;
				in->b = 0;
			}
			break;
		case IR_ALU32:   /* truncation to 32 bits */
			if (KNOWN(in->a) && in->alu == BPF_MOV)
				to_const(in, (int64_t)(uint32_t)val[in->a]);
			break;
		case IR_NEG:
			if (KNOWN(in->a))
				to_const(in, (int64_t)(0 - (uint64_t)val[in->a]));
			break;
		case IR_END:
			if (KNOWN(in->a) && (in->size == 16 || in->size == 32 || in->size == 64))
				to_const(in, (int64_t)kl_bswap((uint64_t)val[in->a], in->size));
			break;
		case IR_MOV:
			if (KNOWN(in->a))
				to_const(in, val[in->a]);
			break;
		case IR_BR: {
			int h = KNOWN(in->a) && (in->has_imm || KNOWN(in->b))
					? kl_cond_holds(in->alu, val[in->a], in->has_imm ? in->imm : val[in->b]) : -1;
			if (h == 1) {          /* always taken */
				in->op = IR_JMP;
				in->a = in->b = 0;
				in->has_imm = false;
			} else if (h == 0) {   /* never: a no-op */
				in->op = IR_LABEL;
				in->label = 0;
			}
			break;
		}
		default:
			break;
		}
		struct kl_ir_operands u;
		kl_ir_operands(in, &u);
		for (uint32_t k = 0; k < u.nuses; k++)
			pending[u.uses[k]] = 0;
		if (u.def) {
			if (pgen[u.def] == pg && pending[u.def] && kl_opt_pure(f->ins[pending[u.def] - 1].op)) {
				f->ins[pending[u.def] - 1].op = IR_LABEL;   /* overwritten before it was read */
				f->ins[pending[u.def] - 1].label = 0;
			}
			pending[u.def] = i + 1;
			pgen[u.def] = pg;
		}
		if (in->op == IR_MOVI && in->d && !in->core) {
			known[in->d] = gen;
			val[in->d] = in->imm;
		} else if (in->d && in->op != IR_LABEL && in->op != IR_STORE && in->op != IR_XADD && in->op != IR_BR &&
			   in->op != IR_JMP && in->op != IR_RET) {
			known[in->d] = 0;
		}
		if (in->op == IR_JMP || in->op == IR_RET)   /* what follows is reached from elsewhere, if at all */
			gen++;
		if (in->op == IR_JMP || in->op == IR_RET || in->op == IR_BR)
			pg++;
	}
#undef KNOWN
}
