/* copies.c — a pass of the IR optimizer (opt.c runs it): copy propagation over the SSA form.
 * A copy `d = s` (or a chain of them) whose every read can read the original instead, its
 * vreg still holding that value there (the dominator-tree walk knows) and the read in the
 * copy's own block or a straight line of blocks after it, is read through the original, and the copy dies (dce): what a let that
 * renames or swaps mutable variables leaves. propagate does the same for vregs set once;
 * these are copies of variables set more than once. Only all of a copy's reads or none: one
 * read left on the copy keeps both alive, a register more. */
#include "compiler/opt/passes.h"
#include "compiler/ssa.h"

struct rewrite {
	uint32_t ins, k;      /* instruction, operand */
	kl_vreg to;           /* the original's vreg */
	uint32_t copy;        /* the copy's value */
};

/* Whether block b is block c, or reached from it only through blocks with one predecessor
 * each (a straight line of at most 8 blocks: what threading and decided tests leave of a
 * join), so a read there keeps the original alive no longer than the copy would be. */
static bool chain(const struct kl_ssa *s, uint32_t c, uint32_t b)
{
	for (int k = 0; k < 8 && b != c; k++) {
		if (s->cfg.blocks[b].npred != 1)
			return false;
		b = s->cfg.blocks[b].pred[0];
	}
	return b == c;
}

void kl_pass_copies(struct kl_arena *a, struct kl_ir_func *f)
{
	bool any = false;
	for (uint32_t i = 0; i < f->nins && !any; i++)
		any = f->ins[i].op == IR_MOV;
	if (!any)
		return;
	struct kl_ssa s;
	if (!kl_opt_ssa(a, f, &s))
		return;
	bool *bad = kl_arena_array(a, bool, s.nvals + 1);   /* a copy with a read that cannot move */
	/* a phi's argument is such a read, if the phi is live: read by an instruction, or by a
	 * live phi (the form's phis are semi-pruned: many are read by nothing) */
	bool *live = kl_arena_array(a, bool, s.nvals + 1);
	uint32_t *work = kl_arena_array(a, uint32_t, s.nvals + 1), n = 0;   /* live phis to follow */
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_operands u;
		kl_ir_operands(&f->ins[i], &u);
		for (uint32_t k = 0; k < u.nuses; k++) {
			uint32_t v = kl_ssa_use(&s, i, k);
			if (!live[v] && s.vals[v].kind == KL_VAL_PHI)
				work[n++] = v;
			live[v] = true;
		}
	}
	while (n) {   /* each phi once: linear, where a sweep until nothing changes was not */
		const struct kl_phi *ph = &s.phis[s.vals[work[--n]].at];
		for (uint32_t k = 0; k < s.cfg.blocks[ph->block].npred; k++) {
			uint32_t v = ph->args[k];
			if (!live[v] && s.vals[v].kind == KL_VAL_PHI)
				work[n++] = v;
			live[v] = true;
		}
	}
	for (uint32_t p = 0; p < s.nphis; p++)
		for (uint32_t k = 0; live[s.phis[p].val] && k < s.cfg.blocks[s.phis[p].block].npred; k++)
			bad[s.phis[p].args[k]] = true;
	KL_VEC(struct rewrite) rw = { 0 };
	struct kl_ssa_walk w;
	kl_ssa_walk_begin(a, &s, &w);
	for (uint32_t b; (b = kl_ssa_walk_next(&w)) != UINT32_MAX;) {
		for (uint32_t i = s.cfg.blocks[b].first; i < s.cfg.blocks[b].end; i++) {
			struct kl_ir_operands u;
			kl_ir_operands(&f->ins[i], &u);
			for (uint32_t k = 0; k < u.nuses; k++) {
				uint32_t v = kl_ssa_use(&s, i, k), first = v;
				kl_vreg to = 0;
				for (int depth = 0; depth < 8 && v && s.vals[v].kind == KL_VAL_INS; depth++) {
					uint32_t at = s.vals[v].at;
					const struct kl_ir_ins *mv = &f->ins[at];
					if (mv->op != IR_MOV || !mv->a || !chain(&s, s.vals[v].block, b))
						break;
					v = kl_ssa_use(&s, at, 0);
					if (kl_ssa_holds(&w, mv->a, v))
						to = mv->a;
				}
				bool copy = first && s.vals[first].kind == KL_VAL_INS && f->ins[s.vals[first].at].op == IR_MOV;
				if (copy && !to)
					bad[first] = true;
				else if (copy)
					kl_vec_push(a, &rw, ((struct rewrite){ i, k, to, first }));
			}
			kl_ssa_walk_step(&w, i);
		}
	}
	for (size_t r = 0; r < rw.len; r++) {
		if (bad[rw.items[r].copy])
			continue;
		kl_vreg *p[6], *def;
		kl_ir_use_ptrs(&f->ins[rw.items[r].ins], p, &def);
		*p[rw.items[r].k] = rw.items[r].to;
	}
}
