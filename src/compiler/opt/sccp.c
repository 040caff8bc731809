/* sccp.c — a pass of the IR optimizer (opt.c runs it): sparse conditional constant
 * propagation (Wegman and Zadeck) over the SSA form (ssa.h). Every value starts unknown and
 * only the entry block runs; a block runs once an edge into it does; a value becomes a
 * constant or varying as the instructions and phis of running blocks say, a branch on
 * constants runs one edge only, and both worklists go until nothing changes. So a variable
 * assigned the same constant on every path that runs is that constant after the join, and a
 * branch only such constants decide is gone, where fold (one block) and propagate (one
 * definition) see neither. Then: reads of constants become immediates where BPF takes one,
 * operations on constants `v = K`, decided branches jumps or nothing; unreachable and dce
 * clean up after. */
#include "compiler/opt/passes.h"
#include "compiler/ssa.h"
#include <linux/bpf.h>

enum { TOP, KNOWN, VARYING };

struct sccp {
	const struct kl_ssa *s;
	uint8_t *lat;               /* per value */
	int64_t *k;
	uint8_t *edges;             /* per block: bit j, its edge to succ[j] runs */
	bool *runs;                 /* per block */
	uint32_t *user_at, *users;  /* per value: who reads it (instruction i, or phi as nins + p) */
	uint32_t *flow, nflow;      /* blocks to (re)visit: b, or b | 1 << 31 for its phis only */
	uint32_t *ssa, nssa;        /* values that changed */
	bool *queued;
};

static bool folds(uint8_t alu)
{
	switch (alu) {
	case BPF_ADD: case BPF_SUB: case BPF_MUL: case BPF_DIV: case BPF_MOD: case BPF_AND: case BPF_OR:
	case BPF_XOR: case BPF_LSH: case BPF_RSH: case BPF_ARSH:
		return true;
	default:
		return false;
	}
}

static void set(struct sccp *c, uint32_t v, uint8_t lat, int64_t k)
{
	if (!v)
		return;
	if (lat == KNOWN && c->lat[v] == KNOWN && c->k[v] != k)
		lat = VARYING;
	if (lat <= c->lat[v])   /* the lattice only goes down: unknown, a constant, varying */
		return;
	c->lat[v] = lat;
	c->k[v] = k;
	if (!c->queued[v]) {
		c->queued[v] = true;
		c->ssa[c->nssa++] = v;
	}
}

/* A read's lattice: value 0 (no definition reaches it) varies. */
static uint8_t get(const struct sccp *c, uint32_t v, int64_t *k)
{
	if (!v)
		return VARYING;
	*k = c->k[v];
	return c->lat[v];
}

static void run_edge(struct sccp *c, uint32_t b, uint32_t j)
{
	if (c->edges[b] >> j & 1)
		return;
	c->edges[b] |= (uint8_t)(1u << j);
	uint32_t t = c->s->blocks[b].succ[j];
	c->flow[c->nflow++] = c->runs[t] ? t | 1u << 31 : t;
	c->runs[t] = true;
}

static void eval_phi(struct sccp *c, uint32_t p)
{
	const struct kl_ssa *s = c->s;
	const struct kl_phi *ph = &s->phis[p];
	const struct kl_block *k = &s->blocks[ph->block];
	uint8_t lat = TOP;
	int64_t val = 0;
	for (uint32_t j = 0; j < k->npred && lat != VARYING; j++) {
		const struct kl_block *pb = &s->blocks[k->pred[j]];
		uint32_t e = pb->succ[0] == ph->block ? 0 : 1;
		if (!(c->edges[k->pred[j]] >> e & 1))
			continue;
		int64_t x = 0;
		uint8_t l = get(c, ph->args[j], &x);
		if (l == TOP)
			continue;
		if (l == VARYING || (lat == KNOWN && x != val))
			lat = VARYING;
		else
			lat = KNOWN, val = x;
	}
	set(c, ph->val, lat, val);
}

/* What instruction i computes, from its operands' lattices; a block's last one, which of
 * its edges run. */
static void eval_ins(struct sccp *c, uint32_t i)
{
	const struct kl_ssa *s = c->s;
	const struct kl_ir_ins *in = &s->f->ins[i];
	uint32_t b = s->block_of[i];
	int64_t x = 0, y = 0;
	uint8_t la = TOP, lb = TOP;
	if (in->op == IR_MOV || in->op == IR_ALU || in->op == IR_ALU32 || in->op == IR_NEG || in->op == IR_END ||
	    in->op == IR_BR) {
		la = get(c, kl_ssa_use(s, i, 0), &x);
		if (in->op == IR_ALU || in->op == IR_BR)
			lb = in->has_imm ? (y = in->imm, KNOWN) : get(c, kl_ssa_use(s, i, 1), &y);
	}
	uint8_t l = VARYING;
	int64_t r = 0;
	switch (in->op) {
	case IR_MOVI:
		l = in->core ? VARYING : KNOWN, r = in->imm;
		break;
	case IR_MOV:
		l = la, r = x;
		break;
	case IR_ALU:
		if (in->core || !folds(in->alu) || la == VARYING || lb == VARYING)
			l = VARYING;
		else if (la == TOP || lb == TOP)
			l = TOP;
		else
			l = KNOWN, r = kl_fold(in->alu, x, y);
		break;
	case IR_ALU32: case IR_NEG: case IR_END:
		if (la != KNOWN || (in->op == IR_ALU32 && in->alu != BPF_MOV) ||
		    (in->op == IR_END && in->size != 16 && in->size != 32 && in->size != 64))
			l = la == TOP ? TOP : VARYING;
		else
			l = KNOWN, r = in->op == IR_ALU32 ? (int64_t)(uint32_t)x
				: in->op == IR_NEG ? (int64_t)(0 - (uint64_t)x) : (int64_t)kl_bswap((uint64_t)x, in->size);
		break;
	case IR_BR: {
		const struct kl_block *k = &s->blocks[b];
		if (la == TOP || lb == TOP)
			return;
		int h = la == KNOWN && lb == KNOWN ? kl_cond_holds(in->alu, x, y) : -1;
		if (k->nsucc == 1 || h == -1) {
			for (uint32_t j = 0; j < k->nsucc; j++)
				run_edge(c, b, j);
		} else {
			run_edge(c, b, h ? 1 : 0);
		}
		return;
	}
	default:
		break;
	}
	if (s->def_val[i])
		set(c, s->def_val[i], l, r);
	if (i == s->blocks[b].end - 1 && in->op != IR_RET)   /* a jump or a fall-through */
		for (uint32_t j = 0; j < s->blocks[b].nsucc; j++)
			run_edge(c, b, j);
}

static void users(struct kl_arena *a, struct sccp *c)
{
	const struct kl_ssa *s = c->s;
	uint32_t nins = s->f->nins;
	c->user_at = kl_arena_array(a, uint32_t, s->nvals + 1);
	for (uint32_t i = 0; i < nins; i++)
		for (uint32_t u = s->use_at[i]; u < s->use_at[i + 1]; u++)
			c->user_at[s->use_val[u]]++;
	for (uint32_t p = 0; p < s->nphis; p++)
		for (uint32_t j = 0; j < s->blocks[s->phis[p].block].npred; j++)
			c->user_at[s->phis[p].args[j]]++;
	uint32_t sum = 0;
	for (uint32_t v = 0; v <= s->nvals; v++) {
		uint32_t n = v < s->nvals ? c->user_at[v] : 0;
		c->user_at[v] = sum;
		sum += n;
	}
	c->users = kl_arena_array(a, uint32_t, sum ? sum : 1);
	uint32_t *fill = kl_arena_array(a, uint32_t, s->nvals + 1);
	for (uint32_t i = 0; i < nins; i++)
		for (uint32_t u = s->use_at[i]; u < s->use_at[i + 1]; u++) {
			uint32_t v = s->use_val[u];
			c->users[c->user_at[v] + fill[v]++] = i;
		}
	for (uint32_t p = 0; p < s->nphis; p++)
		for (uint32_t j = 0; j < s->blocks[s->phis[p].block].npred; j++) {
			uint32_t v = s->phis[p].args[j];
			c->users[c->user_at[v] + fill[v]++] = nins + p;
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

static bool fits(int64_t k)
{
	return k >= INT32_MIN && k <= INT32_MAX;
}

/* The rewrite: what the lattice says constant, as constants. */
static void rewrite(struct sccp *c, struct kl_ir_func *f)
{
	const struct kl_ssa *s = c->s;
	for (uint32_t b = 0; b < s->nblocks; b++) {
		if (!c->runs[b])
			continue;
		for (uint32_t i = s->blocks[b].first; i < s->blocks[b].end; i++) {
			struct kl_ir_ins *in = &f->ins[i];
			uint32_t dv = s->def_val[i];
			int64_t x = 0, y = 0;
			if (dv && c->lat[dv] == KNOWN &&
			    (in->op == IR_MOV || in->op == IR_ALU || in->op == IR_ALU32 || in->op == IR_NEG || in->op == IR_END)) {
				to_const(in, c->k[dv]);
				continue;
			}
			if (in->op == IR_BR) {
				uint8_t la = get(c, kl_ssa_use(s, i, 0), &x);
				uint8_t lb = in->has_imm ? (y = in->imm, KNOWN) : get(c, kl_ssa_use(s, i, 1), &y);
				int h = la == KNOWN && lb == KNOWN ? kl_cond_holds(in->alu, x, y) : -1;
				if (h == 1) {
					in->op = IR_JMP;
					in->a = in->b = 0;
					in->has_imm = false;
				} else if (h == 0) {
					in->op = IR_LABEL;
					in->label = 0;
				} else if (!in->has_imm && lb == KNOWN && fits(y)) {
					in->b = 0, in->has_imm = true, in->imm = y;
				} else if (!in->has_imm && la == KNOWN && fits(x) && kl_cond_swap(in->alu)) {
					in->alu = kl_cond_swap(in->alu);   /* K < x: x > K */
					in->a = in->b;
					in->b = 0, in->has_imm = true, in->imm = x;
				}
				continue;
			}
			if ((in->op == IR_ALU || in->op == IR_STORE) && !in->has_imm && in->b) {
				uint32_t k = in->op == IR_ALU || in->a ? 1 : 0;   /* b's place among the reads */
				if (get(c, kl_ssa_use(s, i, k), &y) == KNOWN && fits(y))
					in->b = 0, in->has_imm = true, in->imm = y;
			} else if (in->op == IR_RET && !in->has_imm && in->a) {
				if (get(c, kl_ssa_use(s, i, 0), &x) == KNOWN && fits(x))
					in->a = 0, in->has_imm = true, in->imm = x;
			}
		}
	}
}

void kl_pass_sccp(struct kl_arena *a, struct kl_ir_func *f)
{
	struct kl_ssa s;
	if (!kl_opt_ssa(a, f, &s))
		return;
	struct sccp c = { .s = &s };
	c.lat = kl_arena_array(a, uint8_t, s.nvals);
	c.k = kl_arena_array(a, int64_t, s.nvals);
	c.edges = kl_arena_array(a, uint8_t, s.nblocks);
	c.runs = kl_arena_array(a, bool, s.nblocks);
	c.queued = kl_arena_array(a, bool, s.nvals);
	/* each edge runs once (2 per block) and each block once more: the flow list's bound */
	c.flow = kl_arena_array(a, uint32_t, 2 * (size_t)s.nblocks + 1);
	c.ssa = kl_arena_array(a, uint32_t, s.nvals);
	for (uint32_t v = 1; v < s.nvals; v++)   /* memory and the entry's: never constants */
		if (s.vals[v].kind == KL_VAL_ENTRY || s.vals[v].var >= f->nvregs)
			c.lat[v] = VARYING;
	users(a, &c);
	c.runs[0] = true;
	c.flow[c.nflow++] = 0;
	while (c.nflow || c.nssa) {
		if (c.nflow) {
			uint32_t b = c.flow[--c.nflow];
			bool phis_only = b >> 31;
			b &= ~(1u << 31);
			const struct kl_block *k = &s.blocks[b];
			for (uint32_t p = 0; p < k->nphi; p++)
				eval_phi(&c, k->phi_first + p);
			if (!phis_only)
				for (uint32_t i = k->first; i < k->end; i++)
					eval_ins(&c, i);
			continue;
		}
		uint32_t v = c.ssa[--c.nssa];
		c.queued[v] = false;
		for (uint32_t u = c.user_at[v]; u < c.user_at[v + 1]; u++) {
			uint32_t x = c.users[u];
			if (x >= f->nins) {
				if (c.runs[s.phis[x - f->nins].block])
					eval_phi(&c, x - f->nins);
			} else if (c.runs[s.block_of[x]]) {
				eval_ins(&c, x);
			}
		}
	}
	rewrite(&c, f);
}
