/* unroll_fold.c — a pass of the IR optimizer (opt.c runs it): a loop with a constant trip
 * count unrolled where that folds it away. A loop here is a label L, a test at L that leaves
 * for X when `v COND K` holds, a body, and the one jump back to L at its end, right after
 * `v = v + S`; v set to a constant just before L, nothing else jumping to L or into the
 * body from outside. Its trip count then follows from the constants (at most 64). The
 * trial: the loop becomes that many copies of its test and body (labels renamed per copy)
 * and a jump to X, loops nested in it the same, then sccp, unreachable, adce and dce run
 * over the function (through the pass manager, so -fno-sccp and the others hold there too,
 * and --print-after and --verify-ir see them); if it is no larger than before (the loops computed constants: a
 * checksum of constants, log2 of a power of two, `(* acc 3)` over two nested loops) it is
 * kept, otherwise the function is put back as it was. */
#include "compiler/opt/passes.h"
#include "compiler/cfg.h"
#include "compiler/opt.h"
#include <linux/bpf.h>
#include <string.h>

enum { MAX_TRIPS = 64, MAX_GROWTH = 8192 };

struct loop {
	uint32_t t, j;              /* the label L, the jump back */
	uint32_t x;                 /* the exit label */
	uint32_t trips;
};

static uint32_t size(const struct kl_ir_func *f)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nins; i++)
		n += f->ins[i].op != IR_LABEL;
	return n;
}

static bool jumps(const struct kl_ir_ins *in)
{
	return in->op == IR_JMP || in->op == IR_BR;
}

/* Jumps to where they would fall anyway (only labels between): what folding a copy's
 * branches leaves, nothing once emitted. */
static void drop_jumps_to_next(struct kl_ir_func *f)
{
	for (uint32_t i = 0; i < f->nins; i++) {
		if (f->ins[i].op != IR_JMP)
			continue;
		for (uint32_t k = i + 1; k < f->nins && f->ins[k].op == IR_LABEL; k++)
			if (f->ins[k].label == f->ins[i].label) {
				f->ins[i].op = IR_LABEL;
				f->ins[i].label = 0;
				break;
			}
	}
}

/* Whether the loop closed by the back jump bj (cfg.h) has the shape above; its trip count
 * in l. at: label -> its instruction (+1). */
static bool loop_at(const struct kl_ir_func *f, const uint32_t *at, struct kl_back_jump bj, struct loop *l)
{
	const struct kl_ir_ins *back = &f->ins[bj.jump];
	if (back->op != IR_JMP)
		return false;
	uint32_t t = bj.head, j = bj.jump, label = back->label;
	uint32_t h = t + 1;
	while (h < j && f->ins[h].op == IR_LABEL)
		h++;
	const struct kl_ir_ins *test = &f->ins[h];
	if (test->op != IR_BR || !test->has_imm || !test->a || test->label > f->nlabels || !at[test->label])
		return false;
	uint32_t xi = at[test->label] - 1;
	if (xi > t && xi < j)
		return false;   /* the test leaves the loop */
	kl_vreg v = test->a;
	const struct kl_ir_ins *inc = &f->ins[j - 1];
	if (inc->op != IR_ALU || inc->alu != BPF_ADD || !inc->has_imm || inc->core || inc->d != v || inc->a != v ||
	    inc->imm == 0)
		return false;
	/* nothing else defines v in the loop; nothing else jumps to L; no jump from outside
	 * into the body */
	for (uint32_t i = t + 1; i < j - 1; i++)
		if (f->ins[i].d == v && f->ins[i].op != IR_LABEL && f->ins[i].op != IR_STORE &&
		    f->ins[i].op != IR_XADD && f->ins[i].op != IR_BR && f->ins[i].op != IR_JMP && f->ins[i].op != IR_RET)
			return false;
	for (uint32_t i = 0; i < f->nins; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		if (!jumps(in) || in->label > f->nlabels || !at[in->label] || i == j)
			continue;
		uint32_t to = at[in->label] - 1;
		if (in->label == label)
			return false;
		if (to > t && to < j && (i < t || i > j))
			return false;
	}
	/* v's value on entry: a constant set just before L, no label between */
	uint32_t p = t;
	int64_t c0 = 0;
	bool found = false;
	while (p-- > 0) {
		const struct kl_ir_ins *in = &f->ins[p];
		if (in->op == IR_LABEL && in->label)
			return false;
		if (jumps(in) || in->op == IR_RET)
			return false;
		if (in->op == IR_MOVI && in->d == v && !in->core) {
			c0 = in->imm;
			found = true;
			break;
		}
		if (in->d == v && in->op != IR_STORE && in->op != IR_XADD)
			return false;
	}
	if (!found)
		return false;
	uint32_t n = 0;
	for (int64_t i = c0; !kl_cond_holds(test->alu, i, test->imm); i = (int64_t)((uint64_t)i + (uint64_t)inc->imm))
		if (++n > MAX_TRIPS)
			return false;
	if (kl_cond_holds(test->alu, 0, 0) < 0)
		return false;
	/* a body that reads or writes memory or calls keeps every such instruction in every
	 * copy: unrolled, it could only grow, so it is not tried (a trial runs four passes over
	 * the whole function: 2,000 such loops took 0.57 s) */
	for (uint32_t i = t + 1; i < j; i++) {
		uint8_t op = f->ins[i].op;
		if (op == IR_LOAD || op == IR_STORE || op == IR_XADD || op == IR_CALL || op == IR_CALLF || op == IR_ASM)
			return false;
	}
	l->t = t, l->j = j, l->x = test->label, l->trips = n;
	return true;
}

/* The first loop (cfg.h) of that shape whose jump back is in [from, to) of f, in l. */
static bool find_loop(struct kl_arena *a, const struct kl_ir_func *f, uint32_t from, uint32_t to, struct loop *l)
{
	uint32_t *at = kl_ir_labels(a, f);
	struct kl_cfg c;
	kl_cfg_build(a, f, &c);
	struct kl_back_jump *bj;
	uint32_t n = kl_cfg_loop_jumps(a, &c, &bj);
	for (uint32_t k = 0; k < n; k++)
		if (bj[k].jump >= from && bj[k].jump < to && loop_at(f, at, bj[k], l))
			return true;
	return false;
}

/* The loop's copies in place of it; returns how many instructions it grew by. */
static uint32_t unroll(struct kl_arena *a, struct kl_ir_func *f, const struct loop *l)
{
	uint32_t body = l->j - l->t - 1;   /* between L and the jump back */
	uint32_t add = l->trips * (body + 1) + 1;
	uint32_t nn = f->nins - (l->j - l->t + 1) + add;
	struct kl_ir_ins *ni = kl_arena_array(a, struct kl_ir_ins, nn + 8);
	memcpy(ni, f->ins, sizeof(*ni) * l->t);
	uint32_t o = l->t;
	uint32_t *map = kl_arena_array(a, uint32_t, f->nlabels + 1);
	uint32_t nlabels = f->nlabels;
	for (uint32_t c = 0; c < l->trips; c++) {
		for (uint32_t i = l->t + 1; i < l->j; i++)   /* fresh labels for this copy's own */
			if (f->ins[i].op == IR_LABEL && f->ins[i].label)
				map[f->ins[i].label] = ++nlabels;
		ni[o] = f->ins[l->t];
		ni[o++].label = ++nlabels;   /* (nothing jumps to it: a copy's head) */
		for (uint32_t i = l->t + 1; i < l->j; i++) {
			struct kl_ir_ins in = f->ins[i];
			if ((in.op == IR_LABEL || jumps(&in)) && in.label && in.label <= f->nlabels && map[in.label])
				in.label = map[in.label];
			ni[o++] = in;
		}
		for (uint32_t i = l->t + 1; i < l->j; i++)
			if (f->ins[i].op == IR_LABEL && f->ins[i].label)
				map[f->ins[i].label] = 0;
	}
	struct kl_ir_ins out = f->ins[l->j];   /* the loop is over: to its exit */
	out.label = l->x;
	ni[o++] = out;
	memcpy(ni + o, f->ins + l->j + 1, sizeof(*ni) * (f->nins - l->j - 1));
	o += f->nins - l->j - 1;
	uint32_t grew = o - f->nins;
	f->ins = ni;
	f->nins = o;
	f->cap = nn + 8;
	f->nlabels = nlabels;
	return grew;
}

/* What a trial runs over the unrolled function, through the pass manager. */
static const char *const trial[] = { "sccp", "unreachable", "adce", "dce", "unreachable" };

int kl_pass_unroll_fold(struct kl_arena *a, struct kl_ir_func *f, struct kl_opt_config *cfg)
{
	/* each trial runs passes over the whole function: their work is bounded by a multiple
	 * of its size (2,000 loops that do not fold took 0.26 s, 0.02 s without the pass) */
	uint64_t work = 0, budget = 8ull * f->nins + 65536;
	for (uint32_t from = 0, tries = 0; tries < 64 && work < budget; tries++) {
		struct loop l;
		if (!find_loop(a, f, from, f->nins, &l))
			return 0;
		uint32_t j = l.j;
		/* the trial, on a copy (its memory released when it is put back) */
		struct kl_arena_mark mark = kl_arena_mark(a);
		uint32_t snins = f->nins, scap = f->cap, slabels = f->nlabels, before = size(f);
		struct kl_ir_ins *sins = f->ins;
		uint32_t lo = l.t, hi = l.j + 1, grown = 0;
		bool ok = true;
		for (;;) {   /* this loop, then those its copies hold */
			uint32_t g = unroll(a, f, &l);
			grown += g;
			hi += g;
			if (grown > MAX_GROWTH) {
				ok = false;
				break;
			}
			if (!find_loop(a, f, lo, hi, &l))
				break;
		}
		work += f->nins;
		if (ok) {
			if (kl_opt_run(a, f, cfg, trial, sizeof(trial) / sizeof(trial[0])))
				return -1;
			drop_jumps_to_next(f);
			kl_opt_compact(f);
		}
		if (ok && size(f) <= before) {
			from = 0;   /* kept: look again from the start */
			continue;
		}
		f->ins = sins;   /* put back (the original array is older than the mark) */
		f->nins = snins, f->cap = scap, f->nlabels = slabels;
		kl_arena_release(a, mark);
		from = j + 1;
	}
	return 0;
}
