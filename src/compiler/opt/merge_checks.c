/* merge_checks.c — a pass of the IR optimizer (opt.c runs it): a packet bounds check that a
 * later one makes redundant goes. `if p + K1 > end goto L` followed, with nothing between
 * but arithmetic and copies (no access, no call, no label another jump enters), by `if p +
 * K2 > end goto L` with K2 >= K1 and p and end unchanged: every packet that fails the first
 * fails the second, which goes to the same place, and nothing between needed the first.
 * Whistler's parse helpers leave these: parse-eth checks 14 bytes, parse-ipv4 on its result
 * 34 (pt_parse: one check and the copy around it fewer). Lowering marks the comparisons with
 * the packet's end (KL_BOUNDS_END_A/B). */
#include "compiler/opt/passes.h"
#include <linux/bpf.h>

#define WINDOW 16   /* instructions looked at after a check for the next */

/* A bounds check as "goto label if base + k > end"; false if in is none. */
struct check {
	kl_vreg base, end;
	int64_t k;
	uint32_t label;
};

/* v as base + k: through `v = u + K` and copies defined once (defs, def_at: find_defs'),
 * and through the copies the window between the checks made (copy_of). */
static kl_vreg root(const struct kl_ir_func *f, const uint32_t *defs, const uint32_t *def_at, const kl_vreg *copy_of,
		    kl_vreg v, int64_t *k)
{
	for (int depth = 0; v && depth < 8; depth++) {
		if (copy_of && copy_of[v]) {
			v = copy_of[v];
			continue;
		}
		if (defs[v] != 1)
			break;
		const struct kl_ir_ins *d = &f->ins[def_at[v]];
		if (d->op == IR_MOV && d->a)
			v = d->a;
		else if (d->op == IR_ALU && d->alu == BPF_ADD && d->has_imm && !d->core && d->a)
			*k += d->imm, v = d->a;
		else
			break;
	}
	return v;
}

static bool as_check(const struct kl_ir_func *f, const uint32_t *defs, const uint32_t *def_at, const kl_vreg *copy_of,
		     const struct kl_ir_ins *in, struct check *c)
{
	if (!kl_opt_jumps_out(in) || (in->alu != BPF_JGT && in->alu != BPF_JLT))
		return false;   /* (strictly past: K2 >= K1 then says the second fails too) */
	kl_vreg p = in->bounds == KL_BOUNDS_END_B ? in->a : in->b, e = in->bounds == KL_BOUNDS_END_B ? in->b : in->a;
	c->k = 0;
	c->base = root(f, defs, def_at, copy_of, p, &c->k);
	int64_t ek = 0;
	c->end = root(f, defs, def_at, copy_of, e, &ek);
	c->label = in->label;
	return c->base && c->end && !ek;
}

void kl_pass_merge_checks(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *defs, *def_at;
	kl_opt_find_defs(a, f, &defs, &def_at);
	uint32_t *refs = kl_opt_label_refs(a, f);
	kl_vreg *copy_of = kl_arena_array(a, kl_vreg, f->nvregs + 1);
	kl_vreg *made = kl_arena_array(a, kl_vreg, f->nins + 1);   /* the window's copies, to clear */
	for (uint32_t i = 0; i < f->nins; i++) {
		struct check first, second;
		if (!as_check(f, defs, def_at, NULL, &f->ins[i], &first))
			continue;
		uint32_t nmade = 0;
		for (uint32_t j = i + 1; j < f->nins && j <= i + WINDOW; j++) {
			const struct kl_ir_ins *in = &f->ins[j];
			if (in->op == IR_LABEL && (!in->label || !refs[in->label]))
				continue;
			if (as_check(f, defs, def_at, copy_of, in, &second)) {
				if (second.base == first.base && second.end == first.end && second.label == first.label &&
				    second.k >= first.k)
					f->ins[i].op = IR_LABEL, f->ins[i].label = 0;   /* the second says it all */
				break;
			}
			bool stale = false;   /* a copy's source set again */
			for (uint32_t m = 0; m < nmade; m++)
				stale |= copy_of[made[m]] == in->d;
			if (!(in->op == IR_MOV || in->op == IR_MOVI || in->op == IR_ALU) || !in->d || in->core ||
			    in->d == first.base || in->d == first.end || stale)
				break;
			/* a copy made here is its source from here on (while the source holds) */
			copy_of[in->d] = in->op == IR_MOV && in->a && in->a != in->d ? in->a : 0;
			made[nmade++] = in->d;
		}
		while (nmade)
			copy_of[made[--nmade]] = 0;
	}
}
