/* gvn.c — a pass of the IR optimizer (opt.c runs it): global value numbering over the SSA
 * form (ssa.h), dominator-based (Briggs, Cooper and Simpson). Walking the dominator tree,
 * each computation is looked up by what it computes: its operation and its operands' value
 * numbers, for a load also the memory it reads (the SSA value of the stack or of the rest),
 * for a map lookup the map, the key's bytes (the values stored into the key's slot in the
 * block before the call) and the maps' state. A computation a dominating one already made,
 * while the vreg that holds that one still does (the walk knows), becomes a copy of it: a
 * packet pointer computed again after its bounds check reads the checked register (as the
 * verifier needs), a context field or a map value loaded twice is loaded once, a map looked
 * up twice with the same key is looked up once where the first's result is known not to
 * be 0 (see known_nonnull). Constants, slot and map addresses are
 * numbered but never replaced (they cost no more to make again than to copy, and copies
 * hold registers). A load with a call since an equal one gets its number but is made again
 * (keeping the first across the call would cost more). A branch into a block that only it
 * enters says its condition holds there and in all the block dominates: a branch on the
 * same numbers and condition there is decided (a jump, or nothing), as parsers that check
 * the same header field again leave them. propagate, coalesce and dce remove the copies and
 * what fed the calls; unreachable what decided branches cut off. */
#include "compiler/opt/passes.h"
#include "compiler/ssa.h"
#include <linux/bpf.h>
#include <string.h>

struct key {
	uint8_t op, alu, size, has_imm;
	int32_t off;
	uint32_t slot, core;
	int64_t imm;
	uint32_t x, y, m1, m2, m3;  /* value numbers of the operands and of the memory read */
	uint32_t calls;             /* a load: the calls made before it (KL_MEM_CALLS' value) */
};

struct entry {
	struct key k;
	uint32_t val;               /* the leader: its value, */
	kl_vreg reg;                /* and the vreg it was defined in */
	uint32_t next;              /* the next entry of its bucket (+1) */
	uint32_t bucket;
};

struct gvn {
	const struct kl_ssa *s;
	uint32_t *vn;               /* per value: its number (the value of its leader) */
	uint32_t *head, mask;       /* buckets: the first entry (+1) */
	struct entry *e;
	uint32_t ne, cap;
	struct kl_arena *a;
};

/* p + x of two registers: where p is a packet pointer, the verifier gives the sum an id of
 * its own, and only pointers of one id share a bounds check, so such a sum checked in one
 * block and made again in the next must be the checked register (a loop's index, which the
 * verifier knows only as a range in a bpf_loop callback). */
static bool var_offset(const struct kl_ir_ins *in)
{
	return in->op == IR_ALU && in->alu == BPF_ADD && !in->has_imm;
}

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint32_t hash(const struct key *k)
{
	uint64_t h = k->op;
	h = mix(h, (uint64_t)k->alu << 8 | k->size << 16 | (uint64_t)k->has_imm << 24);
	h = mix(h, (uint64_t)(uint32_t)k->off << 32 | k->slot);
	h = mix(h, (uint64_t)k->imm);
	h = mix(h, (uint64_t)k->x << 32 | k->y);
	h = mix(h, (uint64_t)k->m1 << 32 | k->m2);
	h = mix(h, (uint64_t)k->m3 << 32 | k->calls);
	h = mix(h, k->core);
	return (uint32_t)(h ^ h >> 32);
}

static bool same(const struct key *a, const struct key *b)
{
	return a->op == b->op && a->alu == b->alu && a->size == b->size && a->has_imm == b->has_imm &&
	       a->off == b->off && a->slot == b->slot && a->core == b->core && a->imm == b->imm && a->x == b->x &&
	       a->y == b->y && a->m1 == b->m1 && a->m2 == b->m2 && a->m3 == b->m3 &&
	       a->calls == b->calls;
}

static struct entry *find(struct gvn *g, const struct key *k)
{
	for (uint32_t e = g->head[hash(k) & g->mask]; e; e = g->e[e - 1].next)
		if (same(&g->e[e - 1].k, k))
			return &g->e[e - 1];
	return NULL;
}

static void insert(struct gvn *g, const struct key *k, uint32_t val, kl_vreg reg)
{
	uint32_t b = hash(k) & g->mask;
	if (g->ne == g->cap) {   /* (no pointer into the entries is held across an insert) */
		uint32_t nc = g->cap * 2 + 16;
		g->e = kl_arena_grow(g->a, g->e, g->cap * sizeof(*g->e), nc * sizeof(*g->e));
		g->cap = nc;
	}
	g->e[g->ne] = (struct entry){ *k, val, reg, g->head[b], b };
	g->head[b] = ++g->ne;
}

/* Entries made since mark go (they were made in blocks that do not dominate the next). */
static void pop_to(struct gvn *g, uint32_t mark)
{
	while (g->ne > mark) {
		struct entry *e = &g->e[--g->ne];
		g->head[e->bucket] = e->next;
	}
}

static bool commutes(uint8_t alu)
{
	return alu == BPF_ADD || alu == BPF_MUL || alu == BPF_AND || alu == BPF_OR || alu == BPF_XOR;
}

static uint32_t vn_of(const struct gvn *g, uint32_t v)
{
	return v ? g->vn[v] : 0;
}

/* A map lookup's key bytes, into k: the argument is slot S's address, and the block stored
 * into S before the call, with nothing between that could read or change it, one value
 * covering S (its number in k->y, or the immediate in k->off with has_imm). */
static bool key_bytes(const struct gvn *g, uint32_t call, struct key *k)
{
	const struct kl_ssa *s = g->s;
	const struct kl_ir_func *f = s->f;
	uint32_t kv = kl_ssa_use(s, call, 1);
	if (!kv || s->vals[kv].kind != KL_VAL_INS)
		return false;
	const struct kl_ir_ins *addr = &f->ins[s->vals[kv].at];
	if (addr->op != IR_ADDR || addr->off != 0 || !addr->slot || addr->slot > f->nslots)
		return false;
	uint32_t slot = addr->slot, first = s->cfg.blocks[s->cfg.block_of[call]].first;
	for (uint32_t i = call; i-- > first;) {
		const struct kl_ir_ins *in = &f->ins[i];
		if (in->op == IR_STORE && !in->a && in->slot == slot) {
			if (in->off != 0 || in->size != f->slots[slot].size)
				return false;
			k->size = in->size;
			if (in->has_imm) {
				k->has_imm = true;
				k->off = (int32_t)in->imm;
				return true;
			}
			k->y = vn_of(g, kl_ssa_use(s, i, 0));
			return k->y != 0;
		}
		if (in->op == IR_STORE || in->op == IR_XADD || in->op == IR_CALL || in->op == IR_CALLF || in->op == IR_ASM ||
		    (in->op == IR_LOAD && !in->a && in->slot == slot))
			return false;
	}
	return false;
}

/* What instruction i computes, as a key; false for what is not numbered. */
static bool key_of(const struct gvn *g, uint32_t i, struct key *k)
{
	const struct kl_ssa *s = g->s;
	const struct kl_ir_ins *in = &s->f->ins[i];
	memset(k, 0, sizeof(*k));
	k->op = in->op;
	switch (in->op) {
	case IR_MOVI:
		k->imm = in->imm, k->core = in->core;
		return true;
	case IR_ADDR:
		k->slot = in->slot, k->off = in->off;
		return true;
	case IR_LDMAP: case IR_LDFUNC: case IR_LDDATA:
		k->imm = in->imm;
		return true;
	case IR_ALU:
		if (in->core)
			return false;
		k->alu = in->alu, k->has_imm = in->has_imm;
		k->x = vn_of(g, kl_ssa_use(s, i, 0));
		if (in->has_imm)
			k->imm = in->imm;
		else
			k->y = vn_of(g, kl_ssa_use(s, i, 1));
		if (!in->has_imm && commutes(in->alu) && k->y < k->x) {
			uint32_t t = k->x;
			k->x = k->y, k->y = t;
		}
		return k->x && (in->has_imm || k->y);
	case IR_ALU32: case IR_NEG: case IR_END:
		k->alu = in->alu, k->size = in->size;
		k->x = vn_of(g, kl_ssa_use(s, i, 0));
		return k->x != 0;
	case IR_LOAD:
		if (in->core)
			return false;
		k->size = in->size, k->off = in->off, k->slot = in->a ? 0 : in->slot;
		uint32_t reads, writes;   /* the memory it reads, by its base's region */
		kl_ssa_mem_effects(in, in->a ? s->region[in->a] : 0, &reads, &writes);
		k->m1 = reads >> KL_MEM_STACK & 1 ? s->mem_in[i][KL_MEM_STACK] : 0;
		k->m2 = reads >> KL_MEM_HEAP & 1 ? s->mem_in[i][KL_MEM_HEAP] : 0;
		k->m3 = reads >> KL_MEM_MAPVAL & 1 ? s->mem_in[i][KL_MEM_MAPVAL] : 0;
		/* and no call between: a copy kept across one holds a callee-saved register or is
		 * saved and loaded around it, which costs more than loading again */
		k->calls = s->mem_in[i][KL_MEM_CALLS];
		if (in->a)
			k->x = vn_of(g, kl_ssa_use(s, i, 0));
		return !in->a || k->x != 0;
	case IR_CALL:
		if (in->imm != BPF_FUNC_map_lookup_elem || in->nargs != 2)
			return false;
		k->imm = in->imm;
		k->x = vn_of(g, kl_ssa_use(s, i, 0));
		k->m1 = s->mem_in[i][KL_MEM_MAPS];
		return k->x && key_bytes(g, i, k);
	default:
		return false;
	}
}

/* A branch as a key: its condition and operands' numbers. */
static void branch_key(const struct gvn *g, uint32_t i, const struct kl_ir_ins *in, uint8_t cond, struct key *k)
{
	memset(k, 0, sizeof(*k));
	k->op = IR_BR;
	k->alu = cond;
	k->x = vn_of(g, kl_ssa_use(g->s, i, 0));
	k->has_imm = in->has_imm;
	if (in->has_imm)
		k->imm = in->imm;
	else
		k->y = vn_of(g, kl_ssa_use(g->s, i, 1));
}

/* Block b entered from a branch alone (its one predecessor ends in one with two ways out):
 * the condition that holds in b, and everywhere b dominates. */
static bool branch_fact(const struct gvn *g, uint32_t b, struct key *k)
{
	const struct kl_ssa *s = g->s;
	const struct kl_block *bk = &s->cfg.blocks[b];
	if (bk->npred != 1)
		return false;
	const struct kl_block *p = &s->cfg.blocks[bk->pred[0]];
	uint32_t last = p->end - 1;
	const struct kl_ir_ins *br = &s->f->ins[last];
	if (br->op != IR_BR || p->nsucc != 2 || !br->a)
		return false;
	uint8_t cond = p->succ[1] == b ? br->alu : kl_cond_invert(br->alu);
	if (!cond)
		return false;
	branch_key(g, last, br, cond, k);
	return k->x && (k->has_imm || k->y);
}

/* Whether a dominating branch said value v is not 0. A map lookup is reused only there: a
 * pointer kept across the join of its own null test is a map value on one path and 0 on the
 * other, and the verifier then walks everything up to its last use twice. */
static bool known_nonnull(const struct gvn *g, uint32_t v)
{
	struct key k;
	memset(&k, 0, sizeof(k));
	k.op = IR_BR;
	k.alu = BPF_JNE;
	k.x = g->vn[v];
	k.has_imm = 1;
	return find((struct gvn *)g, &k) != NULL;
}

/* A branch whose outcome a dominating one decided: a jump, or nothing. */
static void decide(struct gvn *g, uint32_t i, struct kl_ir_ins *in)
{
	struct key k;
	branch_key(g, i, in, in->alu, &k);
	if (!k.x || (!k.has_imm && !k.y))
		return;
	if (find(g, &k)) {
		in->op = IR_JMP;
		in->a = in->b = 0;
		in->has_imm = false;
		return;
	}
	k.alu = kl_cond_invert(in->alu);
	if (k.alu && find(g, &k)) {
		in->op = IR_LABEL;
		in->label = 0;
	}
}

void kl_pass_gvn(struct kl_arena *a, struct kl_ir_func *f)
{
	struct kl_ssa s;
	if (!kl_opt_ssa(a, f, &s))
		return;
	struct gvn g = { .s = &s };
	g.vn = kl_arena_array(a, uint32_t, s.nvals);
	for (uint32_t v = 0; v < s.nvals; v++)
		g.vn[v] = v;
	uint32_t nb = 16;
	while (nb < f->nins)
		nb <<= 1;
	g.head = kl_arena_array(a, uint32_t, nb);
	g.mask = nb - 1;
	g.a = a;   /* entries: grown as made (at most one per instruction, a second per load,
		    * one fact per block) */
	uint32_t *end_mark = kl_arena_array(a, uint32_t, s.cfg.nblocks);
	struct kl_ssa_walk w;
	kl_ssa_walk_begin(a, &s, &w);
	for (uint32_t b; (b = kl_ssa_walk_next(&w)) != UINT32_MAX;) {
		if (b)
			pop_to(&g, end_mark[s.cfg.blocks[b].idom]);
		struct key k;
		if (branch_fact(&g, b, &k))   /* what the branch into b says holds here */
			insert(&g, &k, 1, 0);
		for (uint32_t i = s.cfg.blocks[b].first; i < s.cfg.blocks[b].end; i++) {
			struct kl_ir_ins *in = &f->ins[i];
			uint32_t dv = s.def_val[i];
			if (in->op == IR_BR) {
				decide(&g, i, in);
				kl_ssa_walk_step(&w, i);
				continue;
			}
			if (dv && in->op == IR_MOV) {
				g.vn[dv] = vn_of(&g, kl_ssa_use(&s, i, 0)) ? vn_of(&g, kl_ssa_use(&s, i, 0)) : dv;
			} else if (dv && key_of(&g, i, &k)) {
				struct entry *e = find(&g, &k);
				/* numbered but kept: what costs no more to make again than to copy (a
				 * constant, an address), and arithmetic whose leader is in another block
				 * (a copy saves one instruction at most, and keeping the leader's register
				 * alive across blocks costs registers: the allocator spills). A global's
				 * address (two instruction slots) is as arithmetic: copied in its block. */
				bool cheap = in->op == IR_MOVI || in->op == IR_ADDR || in->op == IR_LDMAP || in->op == IR_LDFUNC ||
					     (e && in->op != IR_LOAD && in->op != IR_CALL && s.vals[e->val].block != b &&
					      !var_offset(in));
				if (e && in->op == IR_CALL && !known_nonnull(&g, e->val))
					e = NULL;
				if (e && (cheap || kl_ssa_holds(&w, e->reg, e->val))) {
					g.vn[dv] = g.vn[e->val];
					if (!cheap) {   /* the same as what e->reg holds: a copy of it */
						kl_vreg d = in->d;
						struct kl_span sp = in->span;
						memset(in, 0, sizeof(*in));
						in->span = sp;
						if (d == e->reg) {
							in->op = IR_LABEL;   /* it holds it already */
						} else {
							in->op = IR_MOV;
							in->d = d;
							in->a = e->reg;
						}
						kl_ssa_walk_step(&w, i);
						w.cur[d] = e->val;   /* d holds the leader's value now */
						continue;
					}
				} else {
					/* a load with a call since the same one: the same number, not a copy */
					struct key any = k;
					any.calls = 0;
					struct entry *e2 = in->op == IR_LOAD ? find(&g, &any) : NULL;
					if (e2)
						g.vn[dv] = g.vn[e2->val];
					else if (in->op == IR_LOAD)
						insert(&g, &any, dv, in->d);
					insert(&g, &k, dv, in->d);
				}
			}
			kl_ssa_walk_step(&w, i);
		}
		end_mark[b] = g.ne;
	}
}
