/* regalloc.c — liveness over the IR's basic blocks (cfg.c's; sparse: each vreg walked back from its
 * uses through the blocks where it is live, so a program's thousands of short-lived
 * temporaries cost their own ranges, not a bit in every block), then linear-scan allocation
 * of virtual registers onto r0-r9: values live across a call go to r6-r9, hints put call arguments in
 * r1-r5 and results in r0, and when registers run out whole intervals spill to the stack
 * (r0 and r5 then become scratch registers). Finally the stack frame is laid out. */
#include "asm_block.h"
#include "cfg.h"
#include "ir.h"
#include "regalloc.h"
#include "ssa.h"
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

struct ivl {
	kl_vreg v;
	uint32_t start, end;     /* positions: use of ins i at 2i, def at 2i+1 */
	bool crosses_call;
	uint32_t ncalls, nrefs;  /* calls it lives across; its reads and writes (each weighted
				  * by how deep in loops it is: 8 per loop) */
	int8_t hint_reg;         /* -1: none */
	kl_vreg hint_vreg;       /* take this vreg's register if free */
	bool prefer_saved;       /* dies computing a value that lives across a call: r6-r9 first */
	uint16_t forbid;         /* registers an asm block it lives across may change */
};

enum { SHORT = 10 };

/* Lists by vreg in one array (compressed rows): the items of vreg v are
 * items[start[v]..start[v+1]). Built from (vreg, item) pairs by counting. */
struct rows {
	uint32_t *start, *items;
};

struct pair { uint32_t v, x; };

static struct rows rows_of(struct kl_arena *a, const struct pair *p, size_t n, uint32_t nrows)
{
	struct rows r = { kl_arena_array(a, uint32_t, nrows + 1), kl_arena_array(a, uint32_t, n + 1) };
	for (size_t k = 0; k < n; k++)
		r.start[p[k].v + 1]++;
	for (uint32_t v = 0; v < nrows; v++)
		r.start[v + 1] += r.start[v];
	uint32_t *fill = kl_arena_array(a, uint32_t, nrows + 1);
	memcpy(fill, r.start, nrows * sizeof(*fill));
	for (size_t k = 0; k < n; k++)
		r.items[fill[p[k].v]++] = p[k].x;
	return r;
}

static void touch(struct ivl *iv, bool *seen, kl_vreg v, uint32_t pos)
{
	seen[v] = true;
	if (pos < iv[v].start)
		iv[v].start = pos;
	if (pos > iv[v].end)
		iv[v].end = pos;
}

/* Widen each vreg's interval over the blocks it is live into (at the block's first
 * position) and out of (its last): the least fixed point of in = use | (out & ~def),
 * out = the successors' in, found per vreg by walking predecessors back from the blocks that
 * read it before writing it, stopping at blocks that write it. Linear in the total size of
 * the live ranges. */
static void live_ranges(struct kl_arena *a, const struct kl_ir_func *f, const struct kl_cfg *c, struct ivl *iv,
			bool *seen)
{
	uint32_t nv = f->nvregs, nb = c->nblocks;
	const struct kl_block *b = c->blocks;
	KL_VEC(struct pair) ue = { 0 }, defs = { 0 };
	uint32_t *defd = kl_arena_array(a, uint32_t, nv), *used = kl_arena_array(a, uint32_t, nv);
	for (uint32_t bi = 0; bi < nb; bi++) {
		for (uint32_t i = b[bi].first; i < b[bi].end; i++) {
			struct kl_ir_operands ud;
			kl_ir_operands(&f->ins[i], &ud);
			for (uint32_t k = 0; k < ud.nuses; k++) {
				kl_vreg v = ud.uses[k];
				if (v && defd[v] != bi + 1 && used[v] != bi + 1) {
					used[v] = bi + 1;
					kl_vec_push(a, &ue, ((struct pair){ v, bi }));
				}
			}
			if (ud.def && defd[ud.def] != bi + 1) {
				defd[ud.def] = bi + 1;
				kl_vec_push(a, &defs, ((struct pair){ ud.def, bi }));
			}
		}
	}
	struct rows uses = rows_of(a, ue.items, ue.len, nv), defined = rows_of(a, defs.items, defs.len, nv);
	/* marks stamped with the vreg being walked, so nothing is cleared between vregs */
	uint32_t *is_def = kl_arena_array(a, uint32_t, nb), *in = kl_arena_array(a, uint32_t, nb);
	uint32_t *out = kl_arena_array(a, uint32_t, nb), *work = kl_arena_array(a, uint32_t, nb + 1);
	for (uint32_t v = 1; v < nv; v++) {
		uint32_t nwork = 0;
		for (uint32_t k = defined.start[v]; k < defined.start[v + 1]; k++)
			is_def[defined.items[k]] = v;
		for (uint32_t k = uses.start[v]; k < uses.start[v + 1]; k++) {
			uint32_t bi = uses.items[k];
			in[bi] = v;
			touch(iv, seen, v, 2 * b[bi].first);
			work[nwork++] = bi;
		}
		while (nwork) {
			uint32_t bi = work[--nwork];
			for (uint32_t k = 0; k < b[bi].npred; k++) {
				uint32_t p = b[bi].pred[k];
				if (out[p] == v)
					continue;
				out[p] = v;
				touch(iv, seen, v, 2 * (b[p].end - 1) + 1);
				if (is_def[p] != v && in[p] != v) {
					in[p] = v;
					touch(iv, seen, v, 2 * b[p].first);
					work[nwork++] = p;
				}
			}
		}
	}
}

static int cmp_start(const void *a, const void *b)
{
	const struct ivl *x = *(struct ivl *const *)a, *y = *(struct ivl *const *)b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* Linear scan; returns the number of spilled intervals. */
static uint32_t scan(struct ivl **order, uint32_t n, int8_t *reg, bool spill_mode, uint32_t nv, bool *saved,
		     const bool *nosave)
{
	struct ivl *active[10] = { 0 };  /* by register */
	uint32_t spills = 0;
	for (uint32_t k = 0; k < n; k++) {
		struct ivl *iv = order[k];
		for (int r = 0; r < 10; r++)
			if (active[r] && active[r]->end < iv->start)
				active[r] = NULL;
		uint16_t allowed = iv->crosses_call ? 0x3c0 : 0x3ff;   /* r6-r9 or r0-r9 */
		allowed &= (uint16_t)~iv->forbid;
		if (spill_mode)
			allowed &= (uint16_t)~((1u << 0) | (1u << 5));
		uint16_t free = 0;
		for (int r = 0; r < 10; r++)
			if ((allowed >> r & 1) && !active[r])
				free |= (uint16_t)(1u << r);
		int pick = -1;
		if (iv->hint_vreg && iv->hint_vreg < nv && reg[iv->hint_vreg] >= 0 &&
		    (free >> reg[iv->hint_vreg] & 1))
			pick = reg[iv->hint_vreg];
		else if (iv->hint_reg >= 0 && (free >> iv->hint_reg & 1))
			pick = iv->hint_reg;
		if (pick < 0) {
			/* temporaries prefer caller-saved registers, keeping r6-r9 for values across calls */
			static const int pref[] = { 1, 2, 3, 4, 5, 0, 6, 7, 8, 9 }, saved_first[] = { 6, 7, 8, 9, 1, 2, 3, 4, 5, 0 };
			const int *order_ = iv->prefer_saved ? saved_first : pref;
			for (int q = 0; q < 10 && pick < 0; q++)
				if (free >> order_[q] & 1)
					pick = order_[q];
		}
		/* across calls with r6-r9 taken: a caller-saved register, saved around each call it
		 * lives across, when that costs less than a load or store at every use (a loop's
		 * counter that stays live past the calls after the loop) */
		if (pick < 0 && saved && !nosave[iv->v] && iv->crosses_call && 2 * iv->ncalls < iv->nrefs) {
			/* the arguments least used first; r0, which each call's result takes, last */
			static const int caller[] = { 5, 4, 3, 2, 1, 0 };
			for (int q = 0; q < 6 && pick < 0; q++)
				if (!active[caller[q]] && !(spill_mode && (caller[q] == 0 || caller[q] == 5)) &&
				    !(iv->forbid >> caller[q] & 1))
					pick = caller[q];
			if (pick >= 0)
				saved[iv->v] = true;
		}
		if (pick >= 0) {
			reg[iv->v] = (int8_t)pick;
			active[pick] = iv;
			continue;
		}
		/* spill whichever of iv and the allowed active intervals is read and written least
		 * (weighted by loop depth), of those the one that ends last */
		struct ivl *victim = iv;
		for (int r = 0; r < 10; r++) {
			struct ivl *c = active[r];
			if ((allowed >> r & 1) && c &&
			    (c->nrefs < victim->nrefs || (c->nrefs == victim->nrefs && c->end > victim->end)))
				victim = c;
		}
		spills++;
		if (victim != iv) {
			int r = reg[victim->v];
			reg[iv->v] = (int8_t)r;
			active[r] = iv;
		}
		reg[victim->v] = KL_REG_SPILLED;
		if (victim != iv && saved && saved[victim->v]) {   /* iv takes a saved one's register */
			saved[victim->v] = false;
			saved[iv->v] = iv->crosses_call;
		}
	}
	return spills;
}

/* After a scan that spilled: give every instruction that touches a spilled vreg two
 * registers that hold nothing live there. False if some instruction has none. */
static bool find_scratch(const struct kl_ir_func *f, struct ivl **order, uint32_t norder,
			 struct kl_alloc *out)
{
	uint32_t n = f->nins;
	uint16_t *busy = calloc(n + 1, sizeof(uint16_t));
	uint32_t *end = calloc(f->nvregs + 1, sizeof(uint32_t));
	if (!busy || !end) {
		free(busy);
		free(end);
		return false;
	}
	for (uint32_t k = 0; k < norder; k++) {
		const struct ivl *v = order[k];
		end[v->v] = v->end;
		int r = out->reg[v->v];
		if (r < 0)
			continue;
		for (uint32_t p = v->start / 2; p <= v->end / 2 && p < n; p++)
			busy[p] |= (uint16_t)(1u << r);
	}
	bool ok = true;
	for (uint32_t i = 0; i < n && ok; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		struct kl_ir_operands ud;
		kl_ir_operands(in, &ud);
		bool touches = ud.def && out->reg[ud.def] < 0;
		for (uint32_t k = 0; k < ud.nuses; k++)
			touches |= out->reg[ud.uses[k]] < 0;
		/* calls, entries and returns move spilled values straight to their fixed registers */
		if (!touches || in->op == IR_CALL || in->op == IR_CALLF || in->op == IR_ENTRY || in->op == IR_RET ||
		    in->op == IR_ASM)
			continue;
		uint16_t b = busy[i];
		int got = 0;
		/* a spilled result of `d = a OP b`, `d = -a` or `d = bswap a` where a dies: computed
		 * in a's register and stored from there (`r1 = be32 r1`, not `r0 = r1; r0 = be32 r0`) */
		if ((in->op == IR_ALU || in->op == IR_END || in->op == IR_NEG) && in->d && out->reg[in->d] == KL_REG_SPILLED &&
		    in->a && out->reg[in->a] >= 0 && end[in->a] <= 2 * i + 1)
			out->scratch[i][got++] = (uint8_t)out->reg[in->a];
		static const int pref[] = { 0, 5, 4, 3, 2, 1, 6, 7, 8, 9 };
		for (int q = 0; q < 10 && got < 2; q++)
			if (!(b >> pref[q] & 1))
				out->scratch[i][got++] = (uint8_t)pref[q];
		ok = got == 2;
	}
	free(busy);
	free(end);
	return ok;
}

struct slot_key { uint32_t first, slot; };

static int cmp_slot_key(const void *a, const void *b)
{
	const struct slot_key *x = a, *y = b;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* Stack frame: fixed slots first, then temporary slots packed so that two whose
 * instruction ranges do not overlap share the same bytes. Returns the frame size. */
/* Slots that hold an array map lookup's key of 8 bytes or less, only ever stored whole as
 * one constant: aligned to 8 bytes. The verifier keeps a constant stored into the stack only at
 * an 8-aligned slot; there it knows the key, and for an array (f->known_elems: not a hash,
 * whose keys it does not look at) that the element exists: the lookup's result is not null,
 * and the null test after it is decided, one path less to walk. So is a key stored from a
 * register that every definition sets to a constant (a class per branch of a cond): each
 * path knows its key, and the paths differ in it anyway (xdp-count: 119 -> 96 processed).
 * A key stored from any other register stays where it is: the verifier would mark it
 * precise, and paths that differ only in it (a loop's counter) no longer prune (big-syslat
 * 228 -> 722, defun-calls 378 -> 636 when tried).
 * Each such key has bytes of its own (not a temporary's, shared with later ones, even of
 * the same value): the verifier takes a store of less than 8 bytes for no write at all when
 * it tracks what is read, so a key stored over another would keep the earlier constant
 * alive back to where it was stored, and paths that did and did not store it would no
 * longer prune (big-bytes walked twice the states; sharing keys of one value cost wh-parse
 * and wh-typed 40-60%). At most KEY_SLOTS keys per function, in a frame that stays within
 * f->key_frame (what the functions it calls leave of the 512 bytes: the verifier adds their
 * frames up); a function of thousands of lookups keeps the rest where they were. Returns how
 * many, their slots in moved and their alignment before in was. */
enum { KEY_SLOTS = 32 };

static uint32_t align_keys(struct kl_arena *a, struct kl_ir_func *f, uint32_t room, uint32_t *moved, uint32_t *was)
{
	uint32_t *slot_of = kl_arena_array(a, uint32_t, f->nvregs);
	bool *elems = kl_arena_array(a, bool, f->nvregs);   /* the vreg is an array map's address */
	/* 1: one constant, 2: more, 3: a register of constants (consts) */
	uint8_t *kind = kl_arena_array(a, uint8_t, f->nslots + 1);
	int64_t *value = kl_arena_array(a, int64_t, f->nslots + 1);
	uint8_t *consts = kl_arena_array(a, uint8_t, f->nvregs);   /* 1: every definition a constant; 2: not */
	for (uint32_t i = 0; i < f->nins; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		struct kl_ir_operands u;
		kl_ir_operands(in, &u);
		if (u.def)
			consts[u.def] = in->op == IR_MOVI && !in->core && consts[u.def] != 2 ? 1 : 2;
	}
	for (uint32_t i = 0; i < f->nins; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		if (in->op == IR_ADDR && in->d && !in->off)
			slot_of[in->d] = in->slot;
		if (in->op == IR_LDMAP && in->d && f->known_elems && in->imm >= 0 && (uint64_t)in->imm < f->nmaps)
			elems[in->d] = f->known_elems[in->imm];
		if (in->op != IR_STORE || in->a || !in->slot || in->slot > f->nslots)
			continue;
		uint32_t s = in->slot;
		if (!in->has_imm && !in->off && in->size == f->slots[s].size && consts[in->b] == 1 && kind[s] != 2)
			kind[s] = 3;   /* a register that holds a constant on every path */
		else if (!in->has_imm || in->off || in->size != f->slots[s].size || (kind[s] == 1 && value[s] != in->imm))
			kind[s] = 2;
		else if (!kind[s])
			kind[s] = 1, value[s] = in->imm;
	}
	uint32_t nown = 0;
	for (uint32_t i = 0; i < f->nins && nown < room; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		if (in->op != IR_CALL || in->imm != BPF_FUNC_map_lookup_elem || in->nargs < 2)
			continue;
		uint32_t s = slot_of[in->args[1]];
		if (!elems[in->args[0]] || !s || s > f->nslots || (kind[s] != 1 && kind[s] != 3) || f->slots[s].size > 8 ||
		    f->slots[s].align >= 8 || !f->slots[s].temp)
			continue;
		was[nown] = f->slots[s].align;
		f->slots[s].align = 8;
		f->slots[s].temp = false;
		moved[nown++] = s;
	}
	return nown;
}

static uint32_t layout_frame(struct kl_arena *a, struct kl_ir_func *f, uint32_t nlow)
{
	/* ranges of the lowering's temporaries come from the instructions naming them; spill
	 * slots (after nlow) already carry their vreg's range */
	for (uint32_t s = 1; s <= nlow; s++)
		if (f->slots[s].temp) {
			f->slots[s].first = UINT32_MAX;
			f->slots[s].last = 0;
		}
	for (uint32_t i = 0; i < f->nins; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		bool names = in->op == IR_ADDR ||
			     ((in->op == IR_STORE || in->op == IR_LOAD) && !in->a && in->slot);
		if (!names)
			continue;
		struct kl_slot *sl = &f->slots[in->slot];
		if (!sl->temp)
			continue;
		if (sl->first == UINT32_MAX || i < sl->first)
			sl->first = i;
		if (i > sl->last)
			sl->last = i;
	}
	uint32_t off = 0;
	for (uint32_t s = 1; s <= f->nslots; s++) {
		struct kl_slot *sl = &f->slots[s];
		if (sl->temp)
			continue;
		off += sl->size;
		off = (off + sl->align - 1) / sl->align * sl->align;
		sl->fp_off = -(int32_t)off;
	}
	/* regions of the frame that temporaries take turns in */
	struct region { int32_t fp_off; uint32_t size, align, busy_until; bool used; };
	struct region *rg = kl_arena_array(a, struct region, f->nslots + 1);
	uint32_t nrg = 0;
	uint32_t *order = kl_arena_array(a, uint32_t, f->nslots + 1);
	uint32_t nt = 0;
	for (uint32_t s = 1; s <= f->nslots; s++)
		if (f->slots[s].temp && f->slots[s].first != UINT32_MAX)
			order[nt++] = s;
	/* by first instruction, then by number (a stable order: sorting must not move bytes) */
	struct slot_key *keys = kl_arena_array(a, struct slot_key, nt + 1);
	for (uint32_t k = 0; k < nt; k++)
		keys[k] = (struct slot_key){ f->slots[order[k]].first, order[k] };
	qsort(keys, nt, sizeof(*keys), cmp_slot_key);
	for (uint32_t k = 0; k < nt; k++)
		order[k] = keys[k].slot;
	for (uint32_t k = 0; k < nt; k++) {
		struct kl_slot *sl = &f->slots[order[k]];
		struct region *r = NULL;
		for (uint32_t q = 0; q < nrg && !r; q++)
			if (rg[q].size == sl->size && rg[q].align >= sl->align && rg[q].busy_until < sl->first)
				r = &rg[q];
		if (!r) {
			r = &rg[nrg++];
			off += sl->size;
			off = (off + sl->align - 1) / sl->align * sl->align;
			*r = (struct region){ -(int32_t)off, sl->size, sl->align, 0, true };
		}
		r->busy_until = sl->last;
		sl->fp_off = r->fp_off;
	}
	return off;
}

/* The calls of a function: their instructions, ascending. */
struct calls {
	uint32_t *at;
	size_t n;
};

static struct calls call_sites(struct kl_arena *a, const struct kl_ir_func *f)
{
	struct calls c = { kl_arena_array(a, uint32_t, f->nins + 1), 0 };
	for (uint32_t i = 0; i < f->nins; i++)
		if (f->ins[i].op == IR_CALL || f->ins[i].op == IR_CALLF)
			c.at[c.n++] = i;
	return c;
}

/* The first of the calls (instruction indexes, ascending) after position pos (2i, 2i + 1). */
static size_t first_call_after(const uint32_t *calls, size_t n, uint32_t pos)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (2 * calls[mid] > pos)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* How often each instruction runs, guessed: 8 to the number of loops around it (a loop's
 * span from its label to its jump back, cfg.h; lowering makes them nested). */
static uint32_t *loop_weights(struct kl_arena *a, const struct kl_ir_func *f, const struct kl_cfg *c)
{
	uint32_t *depth = kl_cfg_span_depth(a, c);
	uint32_t *w = kl_arena_array(a, uint32_t, f->nins + 1);
	for (uint32_t i = 0; i < f->nins; i++)
		w[i] = depth[i] == 0 ? 1 : depth[i] >= 5 ? 4096 : 1u << (3 * depth[i]);
	return w;
}

/* An interval that lives across asm blocks (from before one to after it, as across a call)
 * keeps out of the registers they may change. The blocks an interval spans are found by
 * bisection; each is looked at once per interval living across it. */
static void asm_forbid(struct kl_arena *a, const struct kl_ir_func *f, struct ivl **order, uint32_t norder)
{
	uint32_t *at = kl_arena_array(a, uint32_t, f->nins + 1);
	size_t n = 0;
	for (uint32_t i = 0; i < f->nins; i++)
		if (f->ins[i].op == IR_ASM)
			at[n++] = i;
	for (uint32_t k = 0; n && k < norder; k++) {
		struct ivl *v = order[k];
		for (size_t j = first_call_after(at, n, v->start); j < n && 2 * at[j] + 1 < v->end; j++)
			v->forbid |= f->ins[at[j]].asmb->clobbers;
	}
}

/* The registers in's operands would best be in: a call's arguments and result, an asm block's
 * inputs and output, an argument at entry, a returned value; a copy's or an operation's result
 * near its first operand. */
static void hint(struct ivl *iv, const struct kl_ir_ins *in)
{
	if (in->op == IR_CALL || in->op == IR_CALLF) {
		for (uint32_t k = 0; k < in->nargs; k++)
			iv[in->args[k]].hint_reg = (int8_t)(k + 1);
		if (iv[in->d].hint_reg < 0)
			iv[in->d].hint_reg = 0;
	} else if (in->op == IR_ASM) {   /* its inputs and output where it names them */
		for (uint32_t k = 0; k < in->nargs; k++)
			iv[in->args[k]].hint_reg = (int8_t)in->asmb->in_reg[k];
		if (in->d)
			iv[in->d].hint_reg = in->asmb->out_reg;
	} else if (in->op == IR_ENTRY) {
		iv[in->d].hint_reg = (int8_t)(in->imm + 1);
	} else if (in->op == IR_RET && !in->has_imm && in->a) {
		iv[in->a].hint_reg = 0;
	} else if ((in->op == IR_MOV || in->op == IR_ALU || in->op == IR_NEG || in->op == IR_END ||
		    in->op == IR_ALU32) && in->d) {
		iv[in->d].hint_vreg = in->a;
	}
}

/* Each vreg's interval (seen: it has one; used: something reads it), its register hints,
 * and whether it lives across a call. Returns the intervals in order of their starts. */
static struct ivl **intervals(struct kl_arena *a, const struct kl_ir_func *f, const struct calls *calls,
			      struct ivl *iv, bool *seen, bool *used, uint32_t *norder_out)
{
	uint32_t nv = f->nvregs, n = f->nins;
	for (uint32_t v = 0; v < nv; v++) {
		iv[v].v = v;
		iv[v].start = UINT32_MAX;
		iv[v].hint_reg = -1;
	}
	struct kl_cfg c;
	kl_cfg_build(a, f, &c);
	live_ranges(a, f, &c, iv, seen);
	uint32_t *weight = loop_weights(a, f, &c);
	for (uint32_t i = 0; i < n; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		struct kl_ir_operands ud;
		kl_ir_operands(in, &ud);
		for (uint32_t k = 0; k < ud.nuses; k++) {
			/* ALU's second operand stays live through the def, so the result never takes its
			 * register and the two-address form d = a; d op= b stays correct */
			bool second = in->op == IR_ALU && k == 1;
			touch(iv, seen, ud.uses[k], 2 * i + (second ? 1 : 0));
			used[ud.uses[k]] = true;
			iv[ud.uses[k]].nrefs += weight[i];
		}
		if (ud.def) {
			touch(iv, seen, ud.def, 2 * i + 1);
			iv[ud.def].nrefs += weight[i];
		}
		hint(iv, in);
	}
	/* A value that dies computing a hinted one goes where that one wants to be: `p = load;
	 * a = p + K; call(buf, n, a)` puts p in r3 at once, not in r1 moved out of the way of the
	 * call's first argument. Backwards, so chains of such steps follow. */
	for (uint32_t i = n; i-- > 0;) {
		const struct kl_ir_ins *in = &f->ins[i];
		if ((in->op == IR_MOV || in->op == IR_ALU || in->op == IR_NEG || in->op == IR_END) && in->d &&
		    in->a && iv[in->a].hint_reg < 0 && iv[in->d].hint_reg >= 0 && iv[in->a].end <= 2 * i + 1)
			iv[in->a].hint_reg = iv[in->d].hint_reg;
	}
	uint32_t *call_w = kl_arena_array(a, uint32_t, calls->n + 1);   /* prefix sums of the calls' weights */
	for (size_t k = 0; k < calls->n; k++)
		call_w[k + 1] = call_w[k] + weight[calls->at[k]];
	/* a call clobbers r0-r5: intervals live across one need r6-r9 */
	struct ivl **order = kl_arena_array(a, struct ivl *, nv);
	uint32_t norder = 0;
	for (uint32_t v = 1; v < nv; v++) {
		if (!seen[v])
			continue;
		/* the first call after the interval starts: it crosses that one if any */
		size_t lo = first_call_after(calls->at, calls->n, iv[v].start);
		iv[v].crosses_call = lo < calls->n && 2 * calls->at[lo] + 1 < iv[v].end;
		size_t past = lo, top = calls->n;   /* the first call at or after its end */
		while (past < top) {
			size_t mid = past + (top - past) / 2;
			if (2 * calls->at[mid] + 1 < iv[v].end)
				past = mid + 1;
			else
				top = mid;
		}
		iv[v].ncalls = call_w[past] - call_w[lo];
		order[norder++] = &iv[v];
	}
	/* `x = load; y = bswap x; call ...; use y`: x, which dies where y is made, takes one of
	 * r6-r9 when it can, so that y, which needs one, takes x's register and no copy is made
	 * (the two-address form computes y in place). Only for an x made at most SHORT
	 * instructions before: a longer one holds r6-r9 from values that cross calls (with no
	 * limit, big-bytes' loop counters moved and took 14 instructions more; 10 saves 88 over
	 * the corpus and costs none). */
	for (uint32_t i = n; i-- > 0;) {
		const struct kl_ir_ins *in = &f->ins[i];
		if ((in->op == IR_MOV || in->op == IR_ALU || in->op == IR_NEG || in->op == IR_END || in->op == IR_ALU32) &&
		    in->d && in->a && in->a != in->d && seen[in->a] && iv[in->a].end <= 2 * i + 1 && !iv[in->a].crosses_call &&
		    iv[in->a].start + 2 * SHORT >= 2 * i && iv[in->d].crosses_call &&
		    (iv[in->a].hint_reg < 0 || iv[in->a].hint_reg == iv[in->d].hint_reg)) {
			iv[in->a].prefer_saved = true;
			iv[in->a].hint_reg = -1;   /* (y's own hint, r0-r5, which y cannot have) */
		}
	}
	asm_forbid(a, f, order, norder);
	qsort(order, norder, sizeof(*order), cmp_start);
	*norder_out = norder;
	return order;
}

/* Registers by linear scan; when some instruction with spilled operands has no two free
 * registers for them, r0 and r5 are reserved everywhere and the scan runs again. */
static void assign(struct kl_arena *a, const struct kl_ir_func *f, struct ivl **order, uint32_t norder,
		   struct kl_alloc *out, bool *saved, const bool *nosave)
{
	uint32_t nv = f->nvregs, n = f->nins;
	out->reg = kl_arena_array(a, int8_t, nv);
	out->spill = kl_arena_array(a, uint32_t, nv);
	out->scratch = kl_arena_alloc(a, sizeof(*out->scratch) * (n + 1));
	out->spill_mode = false;
	for (uint32_t i = 0; i < n; i++)
		out->scratch[i][0] = 0, out->scratch[i][1] = 5;
	if (scan(order, norder, out->reg, false, nv, saved, nosave) && !find_scratch(f, order, norder, out)) {
		/* no scratch registers somewhere: again without saving around calls (a saved
		 * register is one less for the spilled operands), then r0 and r5 kept free */
		memset(out->reg, 0, nv);
		memset(saved, 0, nv);
		scan(order, norder, out->reg, false, nv, NULL, nosave);
		if (find_scratch(f, order, norder, out))
			return;
		out->spill_mode = true;
		memset(out->reg, 0, nv);
		memset(saved, 0, nv);
		scan(order, norder, out->reg, true, nv, NULL, nosave);
		for (uint32_t i = 0; i < n; i++)
			out->scratch[i][0] = 0, out->scratch[i][1] = 5;
	}
}

/* Which saved vregs each call saves and loads back: those whose interval it lies inside
 * (not the one it sets: its old value dies there). Then, over the SSA form: a save is left
 * out where a call that dominates this one saved the same value of the vreg (nothing wrote
 * it on any path between; the slot is the vreg's alone within its interval); and a vreg that
 * some call it crosses does not see defined on every path (a linear interval covers more
 * than where the value lives: `if (a) v = ...; call(); if (a) use(v)`) would have its store
 * read a register the verifier knows uninitialized: it is marked nosave (to be spilled
 * instead, stored where defined). Whether any was marked. */
static bool saves(struct kl_arena *a, const struct kl_ir_func *f, const struct calls *calls, const struct ivl *iv,
		  const bool *saved, struct kl_alloc *out, bool *nosave)
{
	uint32_t n = f->nins;
	out->save_at = kl_arena_array(a, uint32_t, n + 2);
	for (int pass = 0; pass < 2; pass++) {
		uint32_t *fill = pass ? kl_arena_array(a, uint32_t, n + 1) : NULL;
		for (kl_vreg v = 1; v < f->nvregs; v++) {
			if (!saved[v] || out->reg[v] < 0)
				continue;
			for (size_t k = first_call_after(calls->at, calls->n, iv[v].start);
			     k < calls->n && 2 * calls->at[k] + 1 < iv[v].end; k++) {
				uint32_t c = calls->at[k];
				if (f->ins[c].d == v)
					continue;
				if (pass)
					out->save_vreg[out->save_at[c] + fill[c]++] = v;
				else
					out->save_at[c + 1]++;
			}
		}
		if (!pass) {
			for (uint32_t i = 0; i < n; i++)
				out->save_at[i + 1] += out->save_at[i];
			out->save_vreg = kl_arena_array(a, kl_vreg, out->save_at[n] + 1);
		}
	}
	uint32_t ns = out->save_at[n];
	out->save_store = kl_arena_array(a, bool, ns + 1);
	for (uint32_t k = 0; k < ns; k++)
		out->save_store[k] = true;
	if (!ns)
		return false;
	struct kl_arena_mark m = kl_arena_mark(a);   /* (the analysis is scratch) */
	struct kl_ssa s;
	kl_ssa_build(a, f, &s);
	/* phis that some path reaches with no definition (through other phis too) */
	bool *undef = kl_arena_array(a, bool, s.nvals + 1);
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t p = 0; p < s.nphis; p++) {
			const struct kl_phi *ph = &s.phis[p];
			const struct kl_block *k = &s.cfg.blocks[ph->block];
			for (uint32_t j = 0; j < k->npred && !undef[ph->val]; j++)
				if (s.cfg.blocks[k->pred[j]].rpo != UINT32_MAX && (!ph->args[j] || undef[ph->args[j]]))
					undef[ph->val] = changed = true;
		}
	}
	bool marked = false;
	uint32_t *last_val = kl_arena_array(a, uint32_t, f->nvregs), *last_block = kl_arena_array(a, uint32_t, f->nvregs);
	uint32_t *last_at = kl_arena_array(a, uint32_t, f->nvregs);
	struct kl_ssa_walk w;
	kl_ssa_walk_begin(a, &s, &w);
	for (uint32_t b; (b = kl_ssa_walk_next(&w)) != UINT32_MAX;) {
		for (uint32_t i = s.cfg.blocks[b].first; i < s.cfg.blocks[b].end; i++) {
			for (uint32_t k = out->save_at[i]; k < out->save_at[i + 1]; k++) {   /* (calls only) */
				kl_vreg v = out->save_vreg[k];
				uint32_t val = w.cur[v];
				if (!val || undef[val]) {
					nosave[v] = marked = true;
				} else if (last_val[v] == val &&
					   (last_block[v] == b ? last_at[v] < i : kl_cfg_dominates(&s.cfg, last_block[v], b))) {
					out->save_store[k] = false;
				} else {
					last_val[v] = val;
					last_block[v] = b;
					last_at[v] = i;
				}
			}
			kl_ssa_walk_step(&w, i);
		}
	}
	kl_arena_release(a, m);
	return marked;
}

int kl_regalloc(struct kl_arena *a, struct kl_diag *d, struct kl_ir_func *f, struct kl_alloc *out)
{
	uint32_t nv = f->nvregs, norder;
	struct ivl *iv = kl_arena_array(a, struct ivl, nv);
	bool *seen = kl_arena_array(a, bool, nv);
	bool *used = kl_arena_array(a, bool, nv);
	struct calls calls = call_sites(a, f);
	struct ivl **order = intervals(a, f, &calls, iv, seen, used, &norder);
	bool *saved = kl_arena_array(a, bool, nv), *nosave = kl_arena_array(a, bool, nv);
	assign(a, f, order, norder, out, saved, nosave);
	for (int round = 0; saves(a, f, &calls, iv, saved, out, nosave); round++) {
		if (round == 3)   /* enough: nothing saved, what does not fit spills */
			memset(nosave, 1, nv);
		memset(saved, 0, nv);   /* again, those marked spilled instead */
		assign(a, f, order, norder, out, saved, nosave);
	}
	/* vregs defined but never read: their defining instruction is dead */
	for (uint32_t v = 1; v < nv; v++)
		if (seen[v] && !used[v])
			out->reg[v] = KL_REG_DEAD;

	/* spill slots (of spilled vregs and of those saved around calls), then the frame */
	uint32_t nlow = f->nslots;
	for (uint32_t v = 1; v < nv; v++) {
		if (!seen[v] || (out->reg[v] != KL_REG_SPILLED && !(saved[v] && out->reg[v] >= 0)))
			continue;
		uint32_t s = kl_ir_slot(a, f, 8, 8);
		f->slots[s].temp = true;
		f->slots[s].first = iv[v].start / 2;
		f->slots[s].last = iv[v].end / 2;
		out->spill[v] = s;
	}
	uint32_t off = layout_frame(a, f, nlow);
	if (f->key_frame && off + 16 <= f->key_frame) {   /* keys of their own: 8 bytes and padding each */
		uint32_t room = (f->key_frame - off) / 16;
		uint32_t moved[KEY_SLOTS], was[KEY_SLOTS];   /* the keys' slots, their alignment before */
		uint32_t n = align_keys(a, f, room < KEY_SLOTS ? room : KEY_SLOTS, moved, was);
		uint32_t off2 = layout_frame(a, f, nlow);
		if (off2 <= f->key_frame) {
			off = off2;
		} else {   /* padding took more: put them back */
			for (uint32_t k = 0; k < n; k++)
				f->slots[moved[k]].temp = true, f->slots[moved[k]].align = was[k];
			off = layout_frame(a, f, nlow);
		}
	}
	out->frame = off;
	if (off > 512)
		return kl_error(d, f->span, "'%s' needs %u bytes of stack; BPF allows 512 (use a per-CPU array "
				"map as scratch space for large buffers)", f->name, off);
	return 0;
}
