/* sccp.c — a pass of the IR optimizer (opt.c runs it): sparse conditional constant
 * propagation (Wegman and Zadeck) over the SSA form (ssa.h). Every value starts unknown and
 * only the entry block runs; a block runs once an edge into it does; a value becomes a
 * constant or varying as the instructions and phis of running blocks say, a branch on
 * constants runs one edge only, and both worklists go until nothing changes. So a variable
 * assigned the same constant on every path that runs is that constant after the join, and a
 * branch only such constants decide is gone, where fold (one block) and propagate (one
 * definition) see neither. Then: reads of constants become immediates where BPF takes one,
 * operations on constants `v = K`, decided branches jumps or nothing; unreachable and dce
 * clean up after. A value that is no one constant may still be known to lie in an unsigned
 * range (RANGE: a load of 2 bytes, x & 0xff, x >> 32, a join of constants, their sums while
 * they cannot wrap), and a branch the ranges decide is decided too: log2 of a struct's
 * constant field plus a u16 is one constant (wh-packet). A range that keeps growing (a loop's
 * counter) varies after WIDEN changes. */
#include "compiler/opt/passes.h"
#include "compiler/ssa.h"
#include <linux/bpf.h>

enum { TOP, KNOWN, RANGE, VARYING };
#define WIDEN 8

struct range {
	uint32_t v;                 /* 0: free */
	uint8_t widened;
	uint64_t hi;
};

struct sccp {
	const struct kl_ssa *s;
	uint8_t *lat;               /* per value */
	int64_t *k;                 /* KNOWN: the value; RANGE: its low end (unsigned) */
	struct range *r;            /* RANGE: its high end, and how often it grew, by value: an open
				     * hash (few values are ranges; memory values never) */
	uint32_t rcap, rn;
	struct kl_arena *a;
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

static struct range *range_at(struct sccp *c, uint32_t v)
{
	if (2 * (c->rn + 1) > c->rcap) {   /* half full: twice the room, everything placed again */
		struct range *old = c->r;
		uint32_t ocap = c->rcap;
		c->rcap = ocap ? 2 * ocap : 64;
		c->r = kl_arena_array(c->a, struct range, c->rcap);
		for (uint32_t x = 0; x < ocap; x++)
			if (old[x].v) {
				uint32_t h = old[x].v * 2654435761u & (c->rcap - 1);
				while (c->r[h].v)
					h = (h + 1) & (c->rcap - 1);
				c->r[h] = old[x];
			}
	}
	uint32_t h = v * 2654435761u & (c->rcap - 1);
	while (c->r[h].v && c->r[h].v != v)
		h = (h + 1) & (c->rcap - 1);
	if (!c->r[h].v)
		c->r[h].v = v, c->rn++;
	return &c->r[h];
}

/* A RANGE value's entry (there is one). */
static const struct range *range_find(const struct sccp *c, uint32_t v)
{
	uint32_t h = v * 2654435761u & (c->rcap - 1);
	while (c->r[h].v != v)
		h = (h + 1) & (c->rcap - 1);
	return &c->r[h];
}

static void changed(struct sccp *c, uint32_t v)
{
	if (!c->queued[v]) {
		c->queued[v] = true;
		c->ssa[c->nssa++] = v;
	}
}

/* v's lattice goes down to include [lo, hi] (a constant when lo == hi): a second constant
 * or a wider range is their union; too many unions, varying. */
static void set(struct sccp *c, uint32_t v, uint8_t lat, int64_t k);

static void set_range(struct sccp *c, uint32_t v, uint64_t lo, uint64_t hi)
{
	if (!v || c->lat[v] == VARYING)
		return;
	if (lo == 0 && hi == UINT64_MAX) {   /* all of u64: no range */
		set(c, v, VARYING, 0);
		return;
	}
	if (c->lat[v] == TOP && lo == hi) {
		c->lat[v] = KNOWN, c->k[v] = (int64_t)lo;
	} else if (c->lat[v] == TOP) {
		c->lat[v] = RANGE, c->k[v] = (int64_t)lo, range_at(c, v)->hi = hi;
	} else {
		struct range *r = range_at(c, v);
		uint64_t olo = (uint64_t)c->k[v];
		uint64_t ohi = c->lat[v] == KNOWN ? (uint64_t)c->k[v] : r->hi;
		uint64_t nlo = lo < olo ? lo : olo, nhi = hi > ohi ? hi : ohi;
		if (nlo == olo && nhi == ohi)
			return;
		if (++r->widened > WIDEN || (nlo == 0 && nhi == UINT64_MAX))
			c->lat[v] = VARYING;
		else
			c->lat[v] = RANGE, c->k[v] = (int64_t)nlo, r->hi = nhi;
	}
	changed(c, v);
}

static void set(struct sccp *c, uint32_t v, uint8_t lat, int64_t k)
{
	if (!v)
		return;
	if (lat == KNOWN) {
		set_range(c, v, (uint64_t)k, (uint64_t)k);
		return;
	}
	if (lat <= c->lat[v])   /* the lattice only goes down: unknown, a constant, a range, varying */
		return;
	c->lat[v] = lat;
	c->k[v] = k;
	changed(c, v);
}

/* A read's lattice: value 0 (no definition reaches it) varies. */
static uint8_t get(const struct sccp *c, uint32_t v, int64_t *k)
{
	if (!v)
		return VARYING;
	*k = c->k[v];
	return c->lat[v];
}

/* A read's range (the whole of u64 when it varies); false while it is unknown (TOP). */
static bool range_of(const struct sccp *c, uint32_t v, uint64_t *lo, uint64_t *hi)
{
	int64_t k = 0;
	uint8_t l = get(c, v, &k);
	*lo = 0, *hi = UINT64_MAX;
	if (l == KNOWN)
		*lo = *hi = (uint64_t)k;
	else if (l == RANGE)
		*lo = (uint64_t)k, *hi = range_find(c, v)->hi;
	return l != TOP;
}

static uint64_t ones_to(uint64_t x)   /* the smallest 2^n - 1 >= x */
{
	for (int sh = 1; sh < 64; sh <<= 1)
		x |= x >> sh;
	return x;
}

/* What an operation on values in [alo, ahi] and [blo, bhi] lies in; false: anything. */
static bool range_op(uint8_t op, uint8_t alu, uint8_t size, uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi,
		     uint64_t *lo, uint64_t *hi)
{
	if (op == IR_ALU32)   /* the truncation: its only form */
		return ahi <= UINT32_MAX ? (*lo = alo, *hi = ahi, true) : (*lo = 0, *hi = UINT32_MAX, true);
	if (op == IR_END)
		return size < 64 && (*lo = 0, *hi = size == 16 ? 0xffff : UINT32_MAX, true);
	if (op != IR_ALU)
		return false;
	switch (alu) {
	case BPF_ADD:
		if (ahi > UINT64_MAX - bhi)
			return false;
		*lo = alo + blo, *hi = ahi + bhi;
		return true;
	case BPF_SUB:
		if (alo < bhi)
			return false;
		*lo = alo - bhi, *hi = ahi - blo;
		return true;
	case BPF_MUL:
		if (bhi && ahi > UINT64_MAX / bhi)
			return false;
		*lo = alo * blo, *hi = ahi * bhi;
		return true;
	case BPF_DIV:
		if (!blo)
			return false;   /* x / 0 is 0: not in [alo / bhi, ...] */
		*lo = alo / bhi, *hi = ahi / blo;
		return true;
	case BPF_MOD:
		if (!blo)
			return false;
		*lo = 0, *hi = ahi < bhi - 1 ? ahi : bhi - 1;
		return true;
	case BPF_AND:
		*lo = 0, *hi = ahi < bhi ? ahi : bhi;
		return true;
	case BPF_OR: case BPF_XOR:
		*lo = alu == BPF_OR ? (alo > blo ? alo : blo) : 0;
		*hi = ones_to(ahi > bhi ? ahi : bhi);
		return true;
	case BPF_RSH:
		if (blo != bhi || blo > 63)
			return false;
		*lo = alo >> blo, *hi = ahi >> blo;
		return true;
	case BPF_LSH:
		if (blo != bhi || blo > 63 || ahi > UINT64_MAX >> blo)
			return false;
		*lo = alo << blo, *hi = ahi << blo;
		return true;
	default:
		return false;
	}
}

/* Whether branch i goes to its target (1), falls through (0), or either (-1), by its
 * operands' ranges; -2 while one is unknown. A 32-bit branch (jmp32) only on constants. */
static int decide(const struct sccp *c, uint32_t i, const struct kl_ir_ins *in)
{
	const struct kl_ssa *s = c->s;
	uint64_t alo, ahi, blo, bhi;
	if (!range_of(c, kl_ssa_use(s, i, 0), &alo, &ahi))
		return -2;
	if (in->has_imm)
		blo = bhi = (uint64_t)in->imm;
	else if (!range_of(c, kl_ssa_use(s, i, 1), &blo, &bhi))
		return -2;
	if (alo == ahi && blo == bhi && in->size != 4)
		return kl_cond_holds(in->alu, (int64_t)alo, (int64_t)blo);
	if (in->size == 4 || in->alu == BPF_JSET)
		return -1;
	uint8_t cond = in->alu;
	if (cond == BPF_JSGT || cond == BPF_JSGE || cond == BPF_JSLT || cond == BPF_JSLE) {
		if (ahi > INT64_MAX || bhi > INT64_MAX)
			return -1;   /* both non-negative: the unsigned order is the signed one */
		cond = cond == BPF_JSGT ? BPF_JGT : cond == BPF_JSGE ? BPF_JGE : cond == BPF_JSLT ? BPF_JLT : BPF_JLE;
	}
	switch (cond) {
	case BPF_JEQ: case BPF_JNE:
		if (ahi < blo || bhi < alo)
			return cond == BPF_JNE;
		return -1;
	case BPF_JGT: return alo > bhi ? 1 : ahi <= blo ? 0 : -1;
	case BPF_JGE: return alo >= bhi ? 1 : ahi < blo ? 0 : -1;
	case BPF_JLT: return ahi < blo ? 1 : alo >= bhi ? 0 : -1;
	case BPF_JLE: return ahi <= blo ? 1 : alo > bhi ? 0 : -1;
	default: return -1;
	}
}

static void run_edge(struct sccp *c, uint32_t b, uint32_t j)
{
	if (c->edges[b] >> j & 1)
		return;
	c->edges[b] |= (uint8_t)(1u << j);
	uint32_t t = c->s->cfg.blocks[b].succ[j];
	c->flow[c->nflow++] = c->runs[t] ? t | 1u << 31 : t;
	c->runs[t] = true;
}

static void eval_phi(struct sccp *c, uint32_t p)
{
	const struct kl_ssa *s = c->s;
	const struct kl_phi *ph = &s->phis[p];
	const struct kl_block *k = &s->cfg.blocks[ph->block];
	bool any = false;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (uint32_t j = 0; j < k->npred; j++) {
		const struct kl_block *pb = &s->cfg.blocks[k->pred[j]];
		uint32_t e = pb->succ[0] == ph->block ? 0 : 1;
		if (!(c->edges[k->pred[j]] >> e & 1))
			continue;
		uint64_t xlo, xhi;   /* (one that varies is all of u64: the union varies) */
		if (!range_of(c, ph->args[j], &xlo, &xhi))
			continue;   /* unknown yet */
		any = true;
		lo = xlo < lo ? xlo : lo;
		hi = xhi > hi ? xhi : hi;
	}
	if (any)
		set_range(c, ph->val, lo, hi);
}

/* What instruction i computes, from its operands' lattices; a block's last one, which of
 * its edges run. */
static void eval_ins(struct sccp *c, uint32_t i)
{
	const struct kl_ssa *s = c->s;
	const struct kl_ir_ins *in = &s->f->ins[i];
	uint32_t b = s->cfg.block_of[i];
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
		if (in->core || !folds(in->alu))
			l = VARYING;
		else if (la == TOP || lb == TOP)
			l = TOP;
		else if (la == KNOWN && lb == KNOWN)
			l = KNOWN, r = kl_fold(in->alu, x, y);
		else
			l = RANGE;
		break;
	case IR_ALU32: case IR_NEG: case IR_END:
		if (la == TOP)
			l = TOP;
		else if (la != KNOWN || (in->op == IR_ALU32 && in->alu != BPF_MOV) ||
			 (in->op == IR_END && in->size != 16 && in->size != 32 && in->size != 64))
			l = in->op == IR_NEG || (in->op == IR_ALU32 && in->alu != BPF_MOV) ? VARYING : RANGE;
		else
			l = KNOWN, r = in->op == IR_ALU32 ? (int64_t)(uint32_t)x
				: in->op == IR_NEG ? (int64_t)(0 - (uint64_t)x) : (int64_t)kl_bswap((uint64_t)x, in->size);
		break;
	case IR_LOAD:   /* zero-extended */
		if (in->size < 8)
			l = RANGE;
		break;
	case IR_BR: {
		const struct kl_block *k = &s->cfg.blocks[b];
		int h = decide(c, i, in);
		if (h == -2)
			return;
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
	if (l == RANGE && in->op == IR_LOAD) {
		set_range(c, s->def_val[i], 0, (1ull << (8 * in->size)) - 1);
	} else if (l == RANGE) {   /* from the operands' ranges */
		uint64_t alo, ahi, blo = 0, bhi = 0, lo, hi;
		range_of(c, kl_ssa_use(s, i, 0), &alo, &ahi);
		if (in->op == IR_ALU && in->has_imm)
			blo = bhi = (uint64_t)in->imm;
		else if (in->op == IR_ALU)
			range_of(c, kl_ssa_use(s, i, 1), &blo, &bhi);
		if (in->op == IR_MOV)
			set_range(c, s->def_val[i], alo, ahi);
		else if (range_op(in->op, in->alu, in->size, alo, ahi, blo, bhi, &lo, &hi))
			set_range(c, s->def_val[i], lo, hi);
		else
			set(c, s->def_val[i], VARYING, 0);
	} else if (s->def_val[i]) {
		set(c, s->def_val[i], l, r);
	}
	if (i == s->cfg.blocks[b].end - 1 && in->op != IR_RET)   /* a jump or a fall-through */
		for (uint32_t j = 0; j < s->cfg.blocks[b].nsucc; j++)
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
		for (uint32_t j = 0; j < s->cfg.blocks[s->phis[p].block].npred; j++)
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
		for (uint32_t j = 0; j < s->cfg.blocks[s->phis[p].block].npred; j++) {
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
	for (uint32_t b = 0; b < s->cfg.nblocks; b++) {
		if (!c->runs[b])
			continue;
		for (uint32_t i = s->cfg.blocks[b].first; i < s->cfg.blocks[b].end; i++) {
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
				int h = decide(c, i, in);
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
	c.a = a;
	c.edges = kl_arena_array(a, uint8_t, s.cfg.nblocks);
	c.runs = kl_arena_array(a, bool, s.cfg.nblocks);
	c.queued = kl_arena_array(a, bool, s.nvals);
	/* each edge runs once (2 per block) and each block once more: the flow list's bound */
	c.flow = kl_arena_array(a, uint32_t, 2 * (size_t)s.cfg.nblocks + 1);
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
			const struct kl_block *k = &s.cfg.blocks[b];
			for (uint32_t p = s.phi_at[b]; p < s.phi_at[b + 1]; p++)
				eval_phi(&c, p);
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
			} else if (c.runs[s.cfg.block_of[x]]) {
				eval_ins(&c, x);
			}
		}
	}
	rewrite(&c, f);
}
