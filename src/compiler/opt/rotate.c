/* rotate.c — a pass of the IR optimizer (opt.c runs it): loops rotated, their tests at the
 * bottom. A loop lowered as `H: tests that leave; body; goto H` gets a copy of its tests in
 * place of the jump back, the last one turned around: `...; if C goto B` with B the body's
 * start, falling out of the loop when it is done. The tests at H stay, run once, as a guard
 * (sccp decides them when the loop starts from constants).
 *
 * Why: the verifier walks the fall-through of a branch first and keeps the jump for later.
 * With the tests at the top every exit is a jump: it walks all the iterations first and the
 * exits last, deepest first, each knowing more than the next (a packet range one byte longer,
 * a larger counter), so none is pruned against the one walked before and the code after the
 * loop is walked once per iteration. Rotated, the first iteration's exit is the fall-through,
 * walked first with the least knowledge, and the later exits are pruned against it. One
 * jump less per iteration, too. Tests of at most MAX_HEAD instructions (a load, an address
 * and their tests) are copied; the loop's other jumps back (`continue`) are left as they are. */
#include "compiler/opt/passes.h"
#include "compiler/cfg.h"
#include <string.h>

enum { MAX_HEAD = 8 };

/* For the loop from its label at t to the jump back at j: the tests [*h, *e) to copy (what
 * computes a value to test, nothing with an effect, and branches out of the loop), or false. */
static bool head(const struct kl_ir_func *f, const uint32_t *at, uint32_t t, uint32_t j, uint32_t *h, uint32_t *e)
{
	uint32_t k = t + 1;
	while (k < j && f->ins[k].op == IR_LABEL)
		k++;
	*h = k;
	*e = 0;
	for (; k < j && k - *h < MAX_HEAD; k++) {
		const struct kl_ir_ins *in = &f->ins[k];
		if (in->op == IR_BR) {
			if (in->label > f->nlabels || !at[in->label])
				break;
			uint32_t x = at[in->label] - 1;
			if (x >= t && x <= j)
				break;          /* a branch within the loop: the tests end before it */
			*e = k + 1;
		} else if (!kl_opt_pure(in->op) || in->core) {
			break;
		}
	}
	return *e && *e < j && kl_cond_invert(f->ins[*e - 1].alu);
}

void kl_pass_rotate(struct kl_arena *a, struct kl_ir_func *f)
{
	struct kl_arena_mark scratch = kl_arena_mark(a);   /* given back when no loop turns */
	uint32_t *at = kl_ir_labels(a, f);
	/* the last jump back to each label: the loop's latch; its tests and the body's label */
	uint32_t *latch = kl_arena_array(a, uint32_t, f->nlabels + 1);
	uint32_t n = f->nins, grow = 0;
	struct kl_cfg c;
	kl_cfg_build(a, f, &c);
	struct kl_back_jump *bj;
	uint32_t nbj = kl_cfg_loop_jumps(a, &c, &bj);
	for (uint32_t k = 0; k < nbj; k++)   /* (a branch back is no latch to rotate) */
		if (f->ins[bj[k].jump].op == IR_JMP)
			latch[f->ins[bj[k].jump].label] = bj[k].jump + 1;
	uint32_t *hs = kl_arena_array(a, uint32_t, n), *es = kl_arena_array(a, uint32_t, n);
	uint32_t *body = kl_arena_array(a, uint32_t, n + 1);   /* e -> the label the copy goes back to */
	uint32_t nlabels = f->nlabels;   /* the labels made below are not loops' */
	for (uint32_t l = 1; l <= nlabels; l++) {
		uint32_t j = latch[l] ? latch[l] - 1 : 0, h, e;
		if (!latch[l] || !head(f, at, at[l] - 1, j, &h, &e) || body[e])
			continue;
		hs[j] = h;
		es[j] = e;
		body[e] = f->ins[e].op == IR_LABEL && f->ins[e].label ? f->ins[e].label : ++f->nlabels;
		grow += e - h + 2;
	}
	if (!grow) {
		kl_arena_release(a, scratch);
		return;
	}
	struct kl_ir_ins *out = kl_arena_array(a, struct kl_ir_ins, n + grow);
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (body[i] && !(f->ins[i].op == IR_LABEL && f->ins[i].label == body[i])) {
			memset(&out[m], 0, sizeof(out[m]));
			out[m].op = IR_LABEL;
			out[m].label = body[i];
			out[m++].span = f->ins[i].span;
		}
		if (!es[i]) {
			out[m++] = f->ins[i];
			continue;
		}
		uint32_t h = hs[i], e = es[i];
		for (uint32_t k = h; k < e; k++)
			out[m++] = f->ins[k];
		struct kl_ir_ins *last = &out[m - 1];
		uint32_t exit = last->label;
		last->alu = kl_cond_invert(last->alu);
		last->label = body[e];
		/* falls out of the loop: to the exit, unless that is where the jump back stood */
		bool next = false;
		for (uint32_t k = i + 1; k < n && f->ins[k].op == IR_LABEL; k++)
			next |= f->ins[k].label == exit;
		if (!next) {
			out[m] = f->ins[i];
			out[m++].label = exit;
		}
	}
	f->ins = out;
	f->nins = m;
	f->cap = n + grow;
}
