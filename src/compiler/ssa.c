/* ssa.c — the SSA values of a function (ssa.h), over its CFG (cfg.c). Every step is linear
 * in the function's size but the CFG's dominators (O(e log n)) and the dominance frontiers
 * (their size: linear for the structured control flow lowering makes). */
#include "ssa.h"
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* ---- memory ---- */

/* Helpers that write no memory (their results are not memory either): a map lookup reads
 * the maps and its key; the others read the clock, the task or the CPU. */
static const int32_t writes_nothing[] = {
	BPF_FUNC_map_lookup_elem, BPF_FUNC_ktime_get_ns, BPF_FUNC_get_prandom_u32,
	BPF_FUNC_get_smp_processor_id, BPF_FUNC_get_current_pid_tgid, BPF_FUNC_get_current_uid_gid,
	BPF_FUNC_get_current_cgroup_id, BPF_FUNC_ktime_get_boot_ns, BPF_FUNC_jiffies64,
	BPF_FUNC_ktime_get_coarse_ns, BPF_FUNC_get_numa_node_id,
};
/* Helpers whose result points at a map's value or a ring buffer's record, nothing else. */
static const int32_t returns_mapval[] = {
	BPF_FUNC_map_lookup_elem, BPF_FUNC_map_lookup_percpu_elem, BPF_FUNC_ringbuf_reserve,
};

static bool in_table(const int32_t *t, size_t n, int64_t x)
{
	for (size_t k = 0; k < n; k++)
		if (t[k] == x)
			return true;
	return false;
}
#define IN(t, x) in_table((t), sizeof(t) / sizeof((t)[0]), (x))

void kl_ssa_mem_effects(const struct kl_ir_ins *in, uint8_t base_region, uint32_t *reads, uint32_t *writes)
{
	const uint32_t all = (1u << KL_MEM_N) - 1;
	uint32_t at = !in->a ? 1u << KL_MEM_STACK : base_region ? base_region : KL_REGION_ALL;
	*reads = *writes = 0;
	switch (in->op) {
	case IR_LOAD:
		*reads = at | 1u << KL_MEM_CALLS;
		break;
	case IR_STORE:
		*writes = at;
		break;
	case IR_XADD:
		*reads = *writes = at;
		break;
	case IR_CALL:
		*reads = all;
		*writes = IN(writes_nothing, in->imm) ? 1u << KL_MEM_CALLS : all;
		break;
	case IR_CALLF: case IR_ASM:
		*reads = *writes = all;
		break;
	default:
		break;
	}
}

/* Where each vreg may point: a union-find over the vregs each operation derives from
 * another (flow-insensitive, so an over-approximation); each class gets the regions of its
 * members' origins: a slot's address the stack; the context (a program's first argument)
 * and what is loaded from memory the heap (plus whatever regions' pointers are stored
 * anywhere); a map lookup's or ring buffer reserve's result a map value; a defun's
 * arguments, a subprogram's result and other helpers' anything. */
static uint32_t uf_find(uint32_t *p, uint32_t x)
{
	while (p[x] != x) {
		p[x] = p[p[x]];
		x = p[x];
	}
	return x;
}

static uint8_t *regions(struct kl_arena *a, const struct kl_ir_func *f)
{
	uint32_t n = f->nvregs, *p = kl_arena_array(a, uint32_t, n + 1);
	uint8_t *origin = kl_arena_array(a, uint8_t, n + 1), *cls = kl_arena_array(a, uint8_t, n + 1);
	for (uint32_t v = 0; v < n; v++)
		p[v] = v;
#define UNION(x, y) (p[uf_find(p, (x))] = uf_find(p, (y)))
	for (uint32_t i = 0; i < f->nins; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		if (!in->d || in->d >= n)
			continue;
		switch (in->op) {
		case IR_ADDR:
			origin[in->d] |= 1 << KL_MEM_STACK;
			break;
		case IR_ENTRY:
			origin[in->d] |= f->subprog ? KL_REGION_ALL : 1 << KL_MEM_HEAP;
			break;
		case IR_LOAD:
			origin[in->d] |= 1 << KL_MEM_HEAP;
			break;
		case IR_CALL:
			origin[in->d] |= IN(returns_mapval, in->imm) ? 1 << KL_MEM_MAPVAL : KL_REGION_ALL;
			break;
		case IR_CALLF: case IR_ASM:
			origin[in->d] |= KL_REGION_ALL;
			break;
		case IR_MOV: case IR_ALU32: case IR_NEG: case IR_END:
			if (in->a)
				UNION(in->d, in->a);
			break;
		case IR_ALU:
			if (in->a)
				UNION(in->d, in->a);
			if (!in->has_imm && in->b)
				UNION(in->d, in->b);
			break;
		default:
			break;
		}
	}
	/* pointers stored to memory come back from loads: loads take the regions stored (two
	 * rounds settle it: the regions are three bits) */
	for (int round = 0; round < 4; round++) {
		memset(cls, 0, n + 1);
		for (uint32_t v = 1; v < n; v++)
			cls[uf_find(p, v)] |= origin[v];
		uint8_t stored = 0;
		for (uint32_t i = 0; i < f->nins; i++) {
			const struct kl_ir_ins *in = &f->ins[i];
			if ((in->op == IR_STORE || in->op == IR_XADD) && !in->has_imm && in->b && in->b < n)
				stored |= cls[uf_find(p, in->b)];
			for (uint32_t k = 0; in->op == IR_ASM && k < in->nargs; k++)   /* it may store them */
				if (in->args[k] < n)
					stored |= cls[uf_find(p, in->args[k])];
		}
		bool changed = false;
		for (uint32_t i = 0; i < f->nins; i++) {
			const struct kl_ir_ins *in = &f->ins[i];
			if (in->op == IR_LOAD && in->d && in->d < n && (origin[in->d] | stored) != origin[in->d]) {
				origin[in->d] |= stored;
				changed = true;
			}
		}
		if (!changed)
			break;
	}
#undef UNION
	uint8_t *r = kl_arena_array(a, uint8_t, n + 1);
	for (uint32_t v = 1; v < n; v++)
		r[v] = cls[uf_find(p, v)];
	return r;
}

/* ---- phis ---- */

struct vec32 {
	uint32_t *v, n, cap;
};

static void vpush(struct kl_arena *a, struct vec32 *x, uint32_t e)
{
	if (x->n == x->cap) {
		uint32_t nc = x->cap ? x->cap * 2 : 8;
		x->v = kl_arena_grow(a, x->v, x->cap * sizeof(uint32_t), nc * sizeof(uint32_t));
		x->cap = nc;
	}
	x->v[x->n++] = e;
}

static void place_phis(struct kl_arena *a, struct kl_ssa *s, const uint8_t *region)
{
	const struct kl_ir_func *f = s->f;
	uint32_t nv = s->nvars, nb = s->cfg.nblocks;
	struct kl_cfg_frontiers df = kl_cfg_frontiers(a, &s->cfg);
	/* names read in a block before it defines them (the others need no phi), and the
	 * blocks that define each */
	bool *global = kl_arena_array(a, bool, nv);
	uint32_t *killed = kl_arena_array(a, uint32_t, nv);   /* block + 1 that defined it */
	struct vec32 *defsites = kl_arena_array(a, struct vec32, nv);
	for (uint32_t r = 0; r < s->cfg.nrpo; r++) {
		uint32_t b = s->cfg.rpo[r];
		for (uint32_t i = s->cfg.blocks[b].first; i < s->cfg.blocks[b].end; i++) {
			const struct kl_ir_ins *in = &f->ins[i];
			struct kl_ir_operands u;
			kl_ir_operands(in, &u);
			uint32_t mr, mw;
			kl_ssa_mem_effects(in, in->a ? region[in->a] : 0, &mr, &mw);
			for (uint32_t k = 0; k < u.nuses; k++)
				if (killed[u.uses[k]] != b + 1)
					global[u.uses[k]] = true;
			for (uint32_t m = 0; m < KL_MEM_N; m++)
				if ((mr >> m & 1) && killed[f->nvregs + m] != b + 1)
					global[f->nvregs + m] = true;
			uint32_t defs[1 + KL_MEM_N], nd = 0;
			if (u.def)
				defs[nd++] = u.def;
			for (uint32_t m = 0; m < KL_MEM_N; m++)
				if (mw >> m & 1)
					defs[nd++] = f->nvregs + m;
			for (uint32_t k = 0; k < nd; k++)
				if (killed[defs[k]] != b + 1) {
					killed[defs[k]] = b + 1;
					vpush(a, &defsites[defs[k]], b);
				}
		}
	}
	/* iterated frontiers per name, with a worklist */
	uint32_t *has_phi = kl_arena_array(a, uint32_t, nb), *queued = kl_arena_array(a, uint32_t, nb);
	struct vec32 phis = { 0 }, work = { 0 };   /* (block, var) pairs */
	for (uint32_t v = 1; v < nv; v++) {
		if (!global[v])
			continue;
		work.n = 0;
		for (uint32_t k = 0; k < defsites[v].n; k++) {
			queued[defsites[v].v[k]] = v;
			vpush(a, &work, defsites[v].v[k]);
		}
		if (v >= f->nvregs)   /* memory is defined at the entry too */
			if (queued[0] != v) {
				queued[0] = v;
				vpush(a, &work, 0);
			}
		while (work.n) {
			uint32_t b = work.v[--work.n];
			for (uint32_t k = df.at[b]; k < df.at[b + 1]; k++) {
				uint32_t y = df.blocks[k];
				if (has_phi[y] == v)
					continue;
				has_phi[y] = v;
				vpush(a, &phis, y);
				vpush(a, &phis, v);
				if (queued[y] != v) {
					queued[y] = v;
					vpush(a, &work, y);
				}
			}
		}
	}
	/* grouped by block */
	uint32_t np = phis.n / 2;
	s->phis = kl_arena_array(a, struct kl_phi, np ? np : 1);
	s->nphis = np;
	s->phi_at = kl_arena_array(a, uint32_t, nb + 1);
	uint32_t *fill = kl_arena_array(a, uint32_t, nb + 1);
	for (uint32_t k = 0; k < np; k++)
		s->phi_at[phis.v[2 * k] + 1]++;
	for (uint32_t b = 0; b < nb; b++)
		s->phi_at[b + 1] += s->phi_at[b];
	memcpy(fill, s->phi_at, nb * sizeof(*fill));
	for (uint32_t k = 0; k < np; k++) {
		const struct kl_block *blk = &s->cfg.blocks[phis.v[2 * k]];
		struct kl_phi *p = &s->phis[fill[phis.v[2 * k]]++];
		p->block = phis.v[2 * k];
		p->var = phis.v[2 * k + 1];
		p->args = kl_arena_array(a, uint32_t, blk->npred ? blk->npred : 1);
	}
}

/* ---- values and renaming ---- */

static uint32_t new_val(struct kl_ssa *s, uint8_t kind, uint32_t var, uint32_t at, uint32_t block)
{
	s->vals[s->nvals] = (struct kl_val){ kind, var, at, block };
	return s->nvals++;
}

void kl_ssa_build(struct kl_arena *a, const struct kl_ir_func *f, struct kl_ssa *s)
{
	memset(s, 0, sizeof(*s));
	s->f = f;
	s->nvars = f->nvregs + KL_MEM_N;
	if (!f->nins)
		return;
	kl_cfg_build(a, f, &s->cfg);
	uint8_t *region = regions(a, f);
	s->region = region;
	place_phis(a, s, region);
	/* every value numbered first: entry memory, phis, definitions (counted first) */
	uint32_t ndefs = 0;
	for (uint32_t i = 0; i < f->nins; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		uint32_t mr, mw;
		kl_ssa_mem_effects(in, in->a ? region[in->a] : 0, &mr, &mw);
		ndefs += (in->d && in->op != IR_LABEL) + (uint32_t)__builtin_popcount(mw);
	}
	s->vals = kl_arena_array(a, struct kl_val, 1 + KL_MEM_N + s->nphis + ndefs);
	s->nvals = 1;
	s->def_val = kl_arena_array(a, uint32_t, f->nins);
	s->mem_in = kl_arena_alloc(a, sizeof(uint32_t[KL_MEM_N]) * (f->nins ? f->nins : 1));
	s->mem_def = kl_arena_alloc(a, sizeof(uint32_t[KL_MEM_N]) * (f->nins ? f->nins : 1));
	s->use_at = kl_arena_array(a, uint32_t, f->nins + 1);
	uint32_t nuses = 0;
	for (uint32_t m = 0; m < KL_MEM_N; m++)
		new_val(s, KL_VAL_ENTRY, f->nvregs + m, 0, 0);
	for (uint32_t k = 0; k < s->nphis; k++)
		s->phis[k].val = new_val(s, KL_VAL_PHI, s->phis[k].var, k, s->phis[k].block);
	for (uint32_t i = 0; i < f->nins; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		struct kl_ir_operands u;
		kl_ir_operands(in, &u);
		s->use_at[i] = nuses;
		nuses += u.nuses;
		uint32_t b = s->cfg.block_of[i];
		if (s->cfg.blocks[b].rpo == NONE)
			continue;
		if (u.def)
			s->def_val[i] = new_val(s, KL_VAL_INS, u.def, i, b);
		uint32_t mr, mw;
		kl_ssa_mem_effects(in, in->a ? region[in->a] : 0, &mr, &mw);
		for (uint32_t m = 0; m < KL_MEM_N; m++)
			if (mw >> m & 1)
				s->mem_def[i][m] = new_val(s, KL_VAL_INS, f->nvregs + m, i, b);
	}
	s->use_at[f->nins] = nuses;
	s->use_val = kl_arena_array(a, uint32_t, nuses ? nuses : 1);
	/* renaming: the walk knows each name's value; reads record it, edges give it to phis */
	struct kl_ssa_walk w;
	kl_ssa_walk_begin(a, s, &w);
	for (uint32_t b; (b = kl_ssa_walk_next(&w)) != NONE;) {
		const struct kl_block *k = &s->cfg.blocks[b];
		for (uint32_t i = k->first; i < k->end; i++) {
			struct kl_ir_operands u;
			kl_ir_operands(&f->ins[i], &u);
			for (uint32_t j = 0; j < u.nuses; j++)
				s->use_val[s->use_at[i] + j] = w.cur[u.uses[j]];
			for (uint32_t m = 0; m < KL_MEM_N; m++)
				s->mem_in[i][m] = w.cur[f->nvregs + m];
			kl_ssa_walk_step(&w, i);
		}
		for (uint32_t j = 0; j < k->nsucc; j++) {
			const struct kl_block *t = &s->cfg.blocks[k->succ[j]];
			uint32_t at = 0;
			while (at < t->npred && t->pred[at] != b)
				at++;
			for (uint32_t p = s->phi_at[k->succ[j]]; p < s->phi_at[k->succ[j] + 1]; p++) {
				struct kl_phi *ph = &s->phis[p];
				ph->args[at] = w.cur[ph->var];
			}
		}
	}
}

/* ---- the dominator-tree walk ---- */

void kl_ssa_walk_begin(struct kl_arena *a, const struct kl_ssa *s, struct kl_ssa_walk *w)
{
	memset(w, 0, sizeof(*w));
	w->s = s;
	w->cur = kl_arena_array(a, uint32_t, s->nvars);
	for (uint32_t m = 0; m < KL_MEM_N; m++)
		w->cur[s->f->nvregs + m] = 1 + m;   /* the entry's memory */
	w->undo = kl_arena_array(a, uint32_t, 2 * (size_t)s->nvals + 2);   /* one (var, old) per value at most */
	w->stack = kl_arena_array(a, uint32_t, s->cfg.nblocks + 1);
	w->mark = kl_arena_array(a, uint32_t, s->cfg.nblocks + 1);
	w->prev = NONE;
	if (s->cfg.nblocks) {
		w->stack[0] = 0;
		w->mark[0] = 0;
		w->nstack = 1;
	}
}

static void walk_set(struct kl_ssa_walk *w, uint32_t var, uint32_t val)
{
	w->undo[w->nundo++] = var;
	w->undo[w->nundo++] = w->cur[var];
	w->cur[var] = val;
}

uint32_t kl_ssa_walk_next(struct kl_ssa_walk *w)
{
	const struct kl_ssa *s = w->s;
	if (w->prev != NONE)   /* the children of the block just walked, at its end's state */
		for (uint32_t c = s->cfg.blocks[w->prev].dom_first; c; c = s->cfg.blocks[c - 1].dom_next) {
			w->stack[w->nstack] = c - 1;
			w->mark[w->nstack++] = w->nundo;
		}
	if (!w->nstack)
		return w->prev = NONE;
	w->nstack--;
	uint32_t b = w->stack[w->nstack], m = w->mark[w->nstack];
	while (w->nundo > m) {
		w->nundo -= 2;
		w->cur[w->undo[w->nundo]] = w->undo[w->nundo + 1];
	}
	for (uint32_t p = s->phi_at[b]; p < s->phi_at[b + 1]; p++)
		walk_set(w, s->phis[p].var, s->phis[p].val);
	return w->prev = b;
}

void kl_ssa_walk_step(struct kl_ssa_walk *w, uint32_t i)
{
	const struct kl_ssa *s = w->s;
	if (s->def_val[i])
		walk_set(w, s->vals[s->def_val[i]].var, s->def_val[i]);
	for (uint32_t m = 0; m < KL_MEM_N; m++)
		if (s->mem_def[i][m])
			walk_set(w, s->f->nvregs + m, s->mem_def[i][m]);
}

/* ---- the invariants ---- */

#define BAD(...) do { snprintf(why, n, __VA_ARGS__); return -1; } while (0)

/* Whether value v's definition reaches position i of block b (i == NONE: b's end). */
static bool def_dominates(const struct kl_ssa *s, uint32_t v, uint32_t b, uint32_t i)
{
	const struct kl_val *x = &s->vals[v];
	if (x->kind == KL_VAL_ENTRY)
		return true;
	if (x->block != b)
		return kl_cfg_dominates(&s->cfg, x->block, b);
	return x->kind == KL_VAL_PHI || x->at < i;
}

/* Every read defined on every path that reaches it: no read of value 0, and none of a phi
 * that takes value 0 from a predecessor that runs (through other phis too). */
static int all_defined(const struct kl_ssa *s, char *why, size_t n)
{
	const struct kl_ir_func *f = s->f;
	uint32_t *work = malloc(sizeof(uint32_t) * (s->nphis + 1));
	bool *seen = calloc(s->nphis + 1, 1);
	uint32_t nw = 0;
	int rc = 0;
	if (!work || !seen) {
		free(work);
		free(seen);
		return 0;   /* (this check needs memory; the others have run) */
	}
	for (uint32_t r = 0; r < s->cfg.nrpo && !rc; r++) {
		const struct kl_block *k = &s->cfg.blocks[s->cfg.rpo[r]];
		for (uint32_t i = k->first; i < k->end && !rc; i++) {
			struct kl_ir_operands u;
			kl_ir_operands(&f->ins[i], &u);
			for (uint32_t j = 0; j < u.nuses && !rc; j++) {
				uint32_t v = kl_ssa_use(s, i, j);
				if (!v) {
					snprintf(why, n, "instruction %u reads v%u, which no definition reaches", i, u.uses[j]);
					rc = -1;
				} else if (s->vals[v].kind == KL_VAL_PHI && !seen[s->vals[v].at]) {
					seen[s->vals[v].at] = true;
					work[nw++] = s->vals[v].at;
				}
			}
		}
	}
	while (nw && !rc) {
		const struct kl_phi *ph = &s->phis[work[--nw]];
		const struct kl_block *k = &s->cfg.blocks[ph->block];
		for (uint32_t j = 0; j < k->npred && !rc; j++) {
			uint32_t v = ph->args[j];
			if (s->cfg.blocks[k->pred[j]].rpo == NONE)
				continue;
			if (!v) {
				snprintf(why, n, "v%u is read after block %u but not defined on the path from block %u", ph->var,
					 ph->block, k->pred[j]);
				rc = -1;
			} else if (s->vals[v].kind == KL_VAL_PHI && !seen[s->vals[v].at]) {
				seen[s->vals[v].at] = true;
				work[nw++] = s->vals[v].at;
			}
		}
	}
	free(work);
	free(seen);
	return rc;
}

int kl_ssa_verify(const struct kl_ssa *s, char *why, size_t n)
{
	const struct kl_ir_func *f = s->f;
	for (uint32_t b = 0; b < s->cfg.nblocks; b++) {
		const struct kl_block *k = &s->cfg.blocks[b];
		for (uint32_t j = 0; j < k->nsucc; j++) {
			const struct kl_block *t = &s->cfg.blocks[k->succ[j]];
			uint32_t c = 0;
			for (uint32_t p = 0; p < t->npred; p++)
				c += t->pred[p] == b;
			if (c != 1)
				BAD("block %u is %u times a predecessor of its successor %u", b, c, k->succ[j]);
		}
		if (k->rpo == NONE)
			continue;
		if (b && (k->idom == NONE || k->idom == b || !kl_cfg_dominates(&s->cfg, k->idom, b)))
			BAD("block %u: its immediate dominator %u does not dominate it", b, k->idom);
		for (uint32_t p = 0; p < k->npred; p++)
			if (b && s->cfg.blocks[k->pred[p]].rpo != NONE && !kl_cfg_dominates(&s->cfg, k->idom, k->pred[p]))
				BAD("block %u: its immediate dominator %u does not dominate its predecessor %u", b, k->idom,
				    k->pred[p]);
		for (uint32_t p = s->phi_at[b]; p < s->phi_at[b + 1]; p++) {
			const struct kl_phi *ph = &s->phis[p];
			if (ph->block != b || s->vals[ph->val].kind != KL_VAL_PHI || s->vals[ph->val].at != p)
				BAD("block %u: phi %u is not the one definition of its value", b, p);
			for (uint32_t j = 0; j < k->npred; j++) {
				uint32_t v = ph->args[j], pb = k->pred[j];
				if (s->cfg.blocks[pb].rpo == NONE || !v)
					continue;
				if (s->vals[v].var != ph->var)
					BAD("block %u: a phi of v%u takes a value of v%u from block %u", b, ph->var, s->vals[v].var, pb);
				if (!def_dominates(s, v, pb, NONE))
					BAD("block %u: a phi of v%u takes a value from block %u that does not reach it", b,
					    ph->var, pb);
			}
		}
		for (uint32_t i = k->first; i < k->end; i++) {
			if (s->cfg.block_of[i] != b)
				BAD("instruction %u is not in block %u", i, b);
			struct kl_ir_operands u;
			kl_ir_operands(&f->ins[i], &u);
			if ((u.def != 0) != (s->def_val[i] != 0) ||
			    (u.def && (s->vals[s->def_val[i]].at != i || s->vals[s->def_val[i]].var != u.def ||
				       s->vals[s->def_val[i]].kind != KL_VAL_INS)))
				BAD("instruction %u: its definition is not its value's", i);
			for (uint32_t j = 0; j < u.nuses; j++) {
				uint32_t v = kl_ssa_use(s, i, j);
				if (v && s->vals[v].var != u.uses[j])
					BAD("instruction %u reads v%u as a value of v%u", i, u.uses[j], s->vals[v].var);
				if (v && !def_dominates(s, v, b, i))
					BAD("instruction %u reads v%u from a definition that does not dominate it", i, u.uses[j]);
			}
			for (uint32_t m = 0; m < KL_MEM_N; m++) {
				uint32_t v = s->mem_in[i][m];
				if (!v || s->vals[v].var != f->nvregs + m || !def_dominates(s, v, b, i))
					BAD("instruction %u: its memory %u is not a value that reaches it", i, m);
			}
		}
	}
	return all_defined(s, why, n);
}

void kl_ssa_dump(const struct kl_ssa *s, FILE *out)
{
	const struct kl_ir_func *f = s->f;
	fprintf(out, "ssa %s: %u blocks, %u phis, %u values\n", f->name, s->cfg.nblocks, s->nphis, s->nvals);
	for (uint32_t b = 0; b < s->cfg.nblocks; b++) {
		const struct kl_block *k = &s->cfg.blocks[b];
		fprintf(out, "b%u [%u, %u) idom b%u preds", b, k->first, k->end, k->idom == NONE ? 0 : k->idom);
		for (uint32_t p = 0; p < k->npred; p++)
			fprintf(out, " b%u", k->pred[p]);
		fprintf(out, "%s\n", k->rpo == NONE ? " (unreachable)" : "");
		for (uint32_t p = s->phi_at[b]; p < s->phi_at[b + 1]; p++) {
			const struct kl_phi *ph = &s->phis[p];
			fprintf(out, "  #%u = phi %s%u", ph->val, ph->var >= f->nvregs ? "mem" : "v",
				ph->var >= f->nvregs ? ph->var - f->nvregs : ph->var);
			for (uint32_t j = 0; j < k->npred; j++)
				fprintf(out, " #%u", ph->args[j]);
			fputc('\n', out);
		}
		for (uint32_t i = k->first; i < k->end; i++) {
			struct kl_ir_operands u;
			kl_ir_operands(&f->ins[i], &u);
			fprintf(out, "  %u:", i);
			if (s->def_val[i])
				fprintf(out, " #%u = v%u", s->def_val[i], u.def);
			for (uint32_t j = 0; j < u.nuses; j++)
				fprintf(out, " v%u#%u", u.uses[j], kl_ssa_use(s, i, j));
			fputc('\n', out);
		}
	}
}
