/* strength.c — a pass of the IR optimizer (opt.c runs it): loop strength reduction. In a
 * loop entered only at its head, whose counter i changes only by `i = i + C` (once),
 *
 *     t = i << K;  p = b + t        (b not set in the loop, t read only there)
 *
 * becomes a variable of its own, q = b + (i << K) made before the loop and kept so by
 * `q = q + (C << K)` after the counter's step: p = q, a shift and an add fewer a round
 * (big-csum's walk over 16-bit words, as clang walks it). */
#include "compiler/opt/passes.h"
#include "compiler/cfg.h"
#include <linux/bpf.h>

#define MAX_LOOPS 64   /* loops looked at per function (each costs a walk of it) */

struct cand {
	uint32_t shl, add, step;   /* the instructions: t = i << K, p = b + t, i = i + C */
	uint32_t head;             /* the loop head's label instruction */
	kl_vreg q;
	int64_t c;                 /* the counter's step */
};

/* Whether instruction at, the loop's one definition of i, steps it by a constant: i = i + C,
 * or i = v where v = i + C (set once, in the loop, before it: the form before coalesce). */
static bool counter_step(const struct kl_ir_func *f, const uint32_t *defs, const uint32_t *def_at, kl_vreg i,
			 uint32_t at, uint32_t head, int64_t *c)
{
	const struct kl_ir_ins *st = &f->ins[at];
	if (st->op == IR_MOV && st->a && defs[st->a] == 1 && def_at[st->a] > head && def_at[st->a] < at)
		st = &f->ins[def_at[st->a]];
	if (st->op != IR_ALU || st->alu != BPF_ADD || !st->has_imm || st->core || st->a != i || st->imm < -1024 ||
	    st->imm > 1024)
		return false;
	*c = st->imm;
	return true;
}

/* Whether the loop [h, j] reads i only to shift it (at x), to step it (at step, or the add
 * that feeds it) and in branches: then q replaces the one arithmetic use, and holds no
 * more registers than the values it replaces (loop-bytes, whose counter also scales a
 * product, spilled with q). */
static bool only_counts(const struct kl_ir_func *f, kl_vreg i, uint32_t h, uint32_t j, uint32_t x, uint32_t step,
			const uint32_t *defs, const uint32_t *def_at)
{
	const struct kl_ir_ins *st = &f->ins[step];
	uint32_t add = st->op == IR_MOV && st->a && defs[st->a] == 1 ? def_at[st->a] : step;
	for (uint32_t k = h; k <= j; k++)
		if (k != x && k != step && k != add && f->ins[k].op != IR_BR && kl_opt_reads(&f->ins[k], i))
			return false;
	return true;
}

static bool set_in(const struct kl_ir_func *f, kl_vreg v, uint32_t from, uint32_t to, uint32_t *at, uint32_t *n)
{
	*n = 0;
	for (uint32_t x = from; x <= to; x++)
		if (kl_opt_defines(&f->ins[x], v))
			*at = x, ++*n;
	return *n != 0;
}

void kl_pass_strength(struct kl_arena *a, struct kl_ir_func *f)
{
	struct kl_arena_mark mark = kl_arena_mark(a);   /* (a growing pass: opt.c keeps what it made) */
	uint32_t n = f->nins;
	uint32_t *label_at = kl_ir_labels(a, f);   /* instruction + 1 */
	uint32_t *defs, *def_at, *uses = kl_arena_array(a, uint32_t, f->nvregs + 1);
	kl_opt_find_defs(a, f, &defs, &def_at);
	for (uint32_t x = 0; x < n; x++)
		kl_opt_count_uses(&f->ins[x], uses, 1);
	struct cand *cs = kl_arena_array(a, struct cand, n + 1);
	bool *taken = kl_arena_array(a, bool, n + 1);   /* a shift already a candidate's */
	uint32_t ncs = 0;
	struct kl_cfg c;
	kl_cfg_build(a, f, &c);
	struct kl_back_jump *bj;
	uint32_t nbj = kl_cfg_loop_jumps(a, &c, &bj);   /* each a loop [h, j] (cfg.h) */
	for (uint32_t k = 0; k < nbj && k < MAX_LOOPS; k++) {
		uint32_t h = bj[k].head, j = bj[k].jump;
		/* entered only at its head, and only from before it by falling through */
		bool closed = true;
		for (uint32_t x = 0; x < n && closed; x++) {
			const struct kl_ir_ins *in = &f->ins[x];
			if ((in->op == IR_BR || in->op == IR_JMP) && in->label <= f->nlabels && label_at[in->label]) {
				uint32_t to = label_at[in->label] - 1;
				closed = !(to >= h && to <= j && (x < h || x > j));
			}
		}
		if (!closed)
			continue;
		for (uint32_t x = h; x < j; x++) {
			const struct kl_ir_ins *sh = &f->ins[x];
			if (taken[x] || sh->op != IR_ALU || sh->alu != BPF_LSH || !sh->has_imm || sh->core || sh->imm < 0 || sh->imm > 8 ||
			    !sh->d || !sh->a || sh->d == sh->a || defs[sh->d] != 1 || uses[sh->d] != 1)
				continue;
			kl_vreg i = sh->a, t = sh->d;
			uint32_t y = x + 1;   /* the add, at once (nothing between sets i or b) */
			const struct kl_ir_ins *ad = &f->ins[y];
			if (y >= j || ad->op != IR_ALU || ad->alu != BPF_ADD || ad->has_imm || ad->core || !ad->d ||
			    (ad->a == t) == (ad->b == t))
				continue;
			kl_vreg b = ad->a == t ? ad->b : ad->a, p = ad->d;
			uint32_t at = 0, nset;
			if (!b || b == i || p == b || set_in(f, b, h, j, &at, &nset) || !set_in(f, i, h, j, &at, &nset) ||
			    nset != 1)
				continue;
			int64_t step;
			if (!counter_step(f, defs, def_at, i, at, h, &step) || !only_counts(f, i, h, j, x, at, defs, def_at))
				continue;
			cs[ncs++] = (struct cand){ x, y, at, h, f->nvregs++, step };
			taken[x] = true;
		}
	}
	if (!ncs) {
		kl_arena_release(a, mark);
		return;
	}
	struct kl_ir_ins *out = kl_arena_array(a, struct kl_ir_ins, n + 3 * ncs + 1);
	uint32_t m = 0;
	bool *done = kl_arena_array(a, bool, ncs + 1);
	for (uint32_t x = 0; x < n; x++) {
		for (uint32_t c = 0; c < ncs; c++)
			if (cs[c].head == x && !done[c]) {   /* before the loop: q = b + (i << K) */
				const struct kl_ir_ins *sh = &f->ins[cs[c].shl], *ad = &f->ins[cs[c].add];
				out[m] = *sh;
				out[m].d = cs[c].q;
				m++;
				out[m] = *ad;
				out[m].d = out[m].a = cs[c].q;
				out[m].b = ad->a == sh->d ? ad->b : ad->a;
				m++;
				done[c] = true;
			}
		out[m] = f->ins[x];
		for (uint32_t c = 0; c < ncs; c++) {
			if (cs[c].shl == x) {
				out[m].op = IR_LABEL, out[m].label = 0;
			} else if (cs[c].add == x) {
				out[m].op = IR_MOV, out[m].a = cs[c].q, out[m].b = 0;
			}
		}
		m++;
		for (uint32_t c = 0; c < ncs; c++)
			if (cs[c].step == x) {   /* q keeps up with i */
				out[m] = f->ins[cs[c].shl];
				out[m].op = IR_ALU, out[m].alu = BPF_ADD, out[m].d = out[m].a = cs[c].q;
				out[m].has_imm = true;
				out[m].imm = cs[c].c * ((int64_t)1 << f->ins[cs[c].shl].imm);
				m++;
			}
	}
	f->ins = out;
	f->nins = m;
	f->cap = n + 3 * ncs + 1;
}
