/* cfg.c — the control-flow graph of an IR function (cfg.h): blocks and edges, reverse
 * postorder, dominators, natural loops; and the back jumps of the linear code. Every step is
 * linear in the function's size but the dominators (Lengauer-Tarjan with path compression:
 * O(e log n)) and the loops (a union-find: O(e log n) at worst). Why there are two notions of
 * a loop is said in cfg.h. */
#include "cfg.h"
#include <string.h>

#define NONE KL_CFG_NONE

/* ---- blocks and edges ---- */

static bool ends_block(uint8_t op)
{
	return op == IR_JMP || op == IR_BR || op == IR_RET;
}

static void build_blocks(struct kl_arena *a, const struct kl_ir_func *f, struct kl_cfg *c)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nins; i++)
		if (i == 0 || (f->ins[i].op == IR_LABEL && f->ins[i].label) || ends_block(f->ins[i - 1].op))
			n++;
	c->blocks = kl_arena_array(a, struct kl_block, n ? n : 1);
	c->block_of = kl_arena_array(a, uint32_t, f->nins + 1);
	uint32_t *label_block = kl_arena_array(a, uint32_t, f->nlabels + 1);
	uint32_t b = NONE;
	for (uint32_t i = 0; i < f->nins; i++) {
		if (i == 0 || (f->ins[i].op == IR_LABEL && f->ins[i].label) || ends_block(f->ins[i - 1].op)) {
			b = b == NONE ? 0 : b + 1;
			c->blocks[b].first = i;
		}
		c->blocks[b].end = i + 1;
		c->block_of[i] = b;
		if (f->ins[i].op == IR_LABEL && f->ins[i].label && f->ins[i].label <= f->nlabels)
			label_block[f->ins[i].label] = b;
	}
	c->nblocks = n;
	uint32_t *npred = kl_arena_array(a, uint32_t, n + 1);
	for (b = 0; b < n; b++) {
		struct kl_block *k = &c->blocks[b];
		const struct kl_ir_ins *last = &f->ins[k->end - 1];
		bool falls = last->op != IR_JMP && last->op != IR_RET && b + 1 < n;
		if (falls)
			k->succ[k->nsucc++] = b + 1;
		if ((last->op == IR_JMP || last->op == IR_BR) && last->label <= f->nlabels) {
			uint32_t t = label_block[last->label];
			if (!(k->nsucc && k->succ[0] == t))
				k->succ[k->nsucc++] = t;
		}
		for (uint32_t j = 0; j < k->nsucc; j++)
			npred[k->succ[j]]++;
	}
	for (b = 0; b < n; b++)
		c->blocks[b].pred = kl_arena_array(a, uint32_t, npred[b] ? npred[b] : 1);
	for (b = 0; b < n; b++)
		for (uint32_t j = 0; j < c->blocks[b].nsucc; j++) {
			struct kl_block *t = &c->blocks[c->blocks[b].succ[j]];
			t->pred[t->npred++] = b;
		}
}

/* ---- dominators: Lengauer-Tarjan (simple version, path compression) ---- */

struct lt {
	uint32_t *num, *vertex, *parent, *semi, *ancestor, *label, *bucket, *bnext;
};

static uint32_t lt_eval(struct lt *t, uint32_t v, uint32_t *path)
{
	if (t->ancestor[v] == NONE)
		return v;
	/* compress the path from v to the root of its tree, iteratively */
	uint32_t n = 0;
	for (uint32_t x = v; t->ancestor[t->ancestor[x]] != NONE; x = t->ancestor[x])
		path[n++] = x;
	while (n--) {
		uint32_t x = path[n], anc = t->ancestor[x];
		if (t->semi[t->label[anc]] < t->semi[t->label[x]])
			t->label[x] = t->label[anc];
		t->ancestor[x] = t->ancestor[anc];
	}
	return t->label[v];
}

/* Depth-first from the entry: preorder numbers and the parents (for Lengauer-Tarjan), and
 * the reverse postorder. */
static void depth_first(struct kl_arena *a, struct kl_cfg *c, struct lt *t, uint32_t *stk, uint32_t *edge)
{
	uint32_t n = c->nblocks, nnum = 0, npost = 0, sp = 0;
	uint32_t *post = kl_arena_array(a, uint32_t, n);
	t->num[0] = nnum;
	t->vertex[nnum++] = 0;
	stk[sp++] = 0;
	while (sp) {
		uint32_t v = stk[sp - 1];
		struct kl_block *k = &c->blocks[v];
		if (edge[v] < k->nsucc) {
			uint32_t w = k->succ[edge[v]++];
			if (t->num[w] == NONE) {
				t->num[w] = nnum;
				t->vertex[nnum++] = w;
				t->parent[w] = v;
				stk[sp++] = w;
			}
			continue;
		}
		post[npost++] = v;
		sp--;
	}
	c->rpo = kl_arena_array(a, uint32_t, npost ? npost : 1);
	c->nrpo = npost;
	for (uint32_t b = 0; b < n; b++)
		c->blocks[b].rpo = NONE;
	for (uint32_t i = 0; i < npost; i++) {
		c->rpo[i] = post[npost - 1 - i];
		c->blocks[c->rpo[i]].rpo = i;
	}
}

/* The immediate dominators of the blocks depth_first numbered (t->num). */
static void semidominators(struct kl_cfg *c, struct lt *t, uint32_t *path)
{
	uint32_t n = c->nblocks, nnum = c->nrpo;
	for (uint32_t v = 0; v < n; v++) {
		t->semi[v] = t->num[v];
		t->label[v] = v;
		c->blocks[v].idom = NONE;
	}
	for (uint32_t i = nnum; i-- > 1;) {
		uint32_t w = t->vertex[i];
		for (uint32_t j = 0; j < c->blocks[w].npred; j++) {
			uint32_t v = c->blocks[w].pred[j];
			if (t->num[v] == NONE)   /* an unreachable predecessor */
				continue;
			uint32_t u = lt_eval(t, v, path);
			if (t->semi[u] < t->semi[w])
				t->semi[w] = t->semi[u];
		}
		uint32_t sv = t->vertex[t->semi[w]];
		t->bnext[w] = t->bucket[sv];
		t->bucket[sv] = w;
		uint32_t p = t->parent[w];
		t->ancestor[w] = p;   /* link */
		for (uint32_t v = t->bucket[p]; v != NONE; v = t->bnext[v]) {
			uint32_t u = lt_eval(t, v, path);
			c->blocks[v].idom = t->semi[u] < t->semi[v] ? u : p;
		}
		t->bucket[p] = NONE;
	}
	for (uint32_t i = 1; i < nnum; i++) {
		uint32_t w = t->vertex[i];
		if (c->blocks[w].idom != t->vertex[t->semi[w]])
			c->blocks[w].idom = c->blocks[c->blocks[w].idom].idom;
	}
	c->blocks[0].idom = 0;
}

/* The dominator tree's children lists, then pre/post numbers for dominance queries. */
static void dom_tree(struct kl_cfg *c, const struct lt *t, uint32_t *stk, uint32_t *edge)
{
	uint32_t n = c->nblocks, sp = 0, clock = 0;
	for (uint32_t i = c->nrpo; i-- > 1;) {
		uint32_t w = t->vertex[i], d = c->blocks[w].idom;
		c->blocks[w].dom_next = c->blocks[d].dom_first;
		c->blocks[d].dom_first = w + 1;
	}
	stk[sp++] = 0;
	c->blocks[0].dom_pre = clock++;
	for (uint32_t b = 0; b < n; b++)
		edge[b] = c->blocks[b].dom_first;
	while (sp) {
		uint32_t v = stk[sp - 1];
		if (edge[v]) {
			uint32_t ch = edge[v] - 1;
			edge[v] = c->blocks[ch].dom_next;
			c->blocks[ch].dom_pre = clock++;
			stk[sp++] = ch;
			continue;
		}
		c->blocks[v].dom_post = clock++;
		sp--;
	}
}

static void dominators(struct kl_arena *a, struct kl_cfg *c)
{
	uint32_t n = c->nblocks;
	struct lt t;
	uint32_t **arr[] = { &t.num, &t.vertex, &t.parent, &t.semi, &t.ancestor, &t.label, &t.bucket, &t.bnext };
	for (size_t i = 0; i < sizeof(arr) / sizeof(arr[0]); i++) {
		*arr[i] = kl_arena_array(a, uint32_t, n);
		memset(*arr[i], 0xff, sizeof(uint32_t) * n);
	}
	uint32_t *path = kl_arena_array(a, uint32_t, n);
	uint32_t *stk = kl_arena_array(a, uint32_t, n), *edge = kl_arena_array(a, uint32_t, n);
	depth_first(a, c, &t, stk, edge);
	semidominators(c, &t, path);
	dom_tree(c, &t, stk, edge);
}

bool kl_cfg_dominates(const struct kl_cfg *c, uint32_t x, uint32_t y)
{
	const struct kl_block *bx = &c->blocks[x], *by = &c->blocks[y];
	if (bx->rpo == NONE || by->rpo == NONE)
		return false;
	return bx->dom_pre <= by->dom_pre && by->dom_post <= bx->dom_post;
}

/* ---- natural loops ---- */

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

/* Headers innermost first (a loop's header dominates the headers of the loops in it, so
 * comes before them in reverse postorder: walked backward). A header's body is collected
 * backward from the predecessors it dominates, each loop already found standing as its
 * header (the union-find's representative): every block joins one loop once, and its
 * predecessors are looked at then. */
static void natural_loops(struct kl_arena *a, struct kl_cfg *c)
{
	uint32_t n = c->nblocks;
	uint32_t *up = kl_arena_array(a, uint32_t, n), *mark = kl_arena_array(a, uint32_t, n);
	uint32_t *work = kl_arena_array(a, uint32_t, n);
	for (uint32_t b = 0; b < n; b++) {
		up[b] = b;
		mark[b] = NONE;
		c->blocks[b].loop = c->blocks[b].loop_outer = NONE;
	}
	for (uint32_t r = c->nrpo; r-- > 0;) {
		uint32_t h = c->rpo[r], nwork = 0;
		const struct kl_block *hk = &c->blocks[h];
		for (uint32_t j = 0; j < hk->npred; j++) {
			uint32_t p = hk->pred[j];
			if (!kl_cfg_dominates(c, h, p))
				continue;
			c->blocks[h].loop = h;
			uint32_t z = uf_find(up, p);
			if (z != h && mark[z] != h)
				mark[z] = h, work[nwork++] = z;
		}
		while (nwork) {
			uint32_t x = work[--nwork];
			struct kl_block *xk = &c->blocks[x];
			up[x] = h;
			if (xk->loop == x)
				xk->loop_outer = h;
			else
				xk->loop = h;
			for (uint32_t j = 0; j < xk->npred; j++) {
				uint32_t y = xk->pred[j];
				if (c->blocks[y].rpo == NONE)
					continue;
				uint32_t z = uf_find(up, y);
				if (z != h && mark[z] != h)
					mark[z] = h, work[nwork++] = z;
			}
		}
	}
	for (uint32_t r = 0; r < c->nrpo; r++) {   /* outer headers first */
		struct kl_block *k = &c->blocks[c->rpo[r]];
		if (k->loop == c->rpo[r])
			k->depth = k->loop_outer == NONE ? 1 : c->blocks[k->loop_outer].depth + 1;
	}
	for (uint32_t b = 0; b < n; b++)
		if (c->blocks[b].loop != NONE)
			c->blocks[b].depth = c->blocks[c->blocks[b].loop].depth;
}

/* ---- dominance frontiers ---- */

/* Cytron et al.'s, walked as Cooper, Harvey and Kennedy do: from each predecessor of a join
 * up the dominator tree to the join's immediate dominator. Counted, then filled, in one order. */
struct kl_cfg_frontiers kl_cfg_frontiers(struct kl_arena *a, const struct kl_cfg *c)
{
	uint32_t nb = c->nblocks;
	struct kl_cfg_frontiers df = { kl_arena_array(a, uint32_t, nb + 1), NULL };
	uint32_t *last = kl_arena_array(a, uint32_t, nb + 1), *fill = NULL;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t b = 0; b < nb; b++)
			last[b] = NONE;
		for (uint32_t b = 0; b < nb; b++) {
			const struct kl_block *k = &c->blocks[b];
			if (k->npred < 2 || k->rpo == NONE)
				continue;
			for (uint32_t j = 0; j < k->npred; j++) {
				uint32_t r = k->pred[j];
				if (c->blocks[r].rpo == NONE)
					continue;
				for (; r != k->idom; r = c->blocks[r].idom) {
					if (last[r] == b)
						continue;
					last[r] = b;
					if (pass)
						df.blocks[fill[r]++] = b;
					else
						df.at[r + 1]++;
				}
			}
		}
		if (!pass) {
			for (uint32_t b = 0; b < nb; b++)
				df.at[b + 1] += df.at[b];
			df.blocks = kl_arena_array(a, uint32_t, df.at[nb] + 1);
			fill = kl_arena_array(a, uint32_t, nb + 1);
			memcpy(fill, df.at, nb * sizeof(*fill));
		}
	}
	return df;
}

void kl_cfg_build(struct kl_arena *a, const struct kl_ir_func *f, struct kl_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->f = f;
	if (!f->nins)
		return;
	build_blocks(a, f, c);
	dominators(a, c);
	for (uint32_t b = 0; b < c->nblocks; b++)
		c->blocks[b].loop = c->blocks[b].loop_outer = NONE;
}

void kl_cfg_loops(struct kl_arena *a, struct kl_cfg *c)
{
	if (c->f && c->f->nins)
		natural_loops(a, c);
}

/* ---- jumps back in the linear code ---- */

/* The jumps and branches of f to a label before them; with c, only those whose target's
 * block dominates their own (a natural loop's back edge). */
static uint32_t jumps_back(struct kl_arena *a, const struct kl_ir_func *f, const struct kl_cfg *c,
			   struct kl_back_jump **out)
{
	uint32_t *at = kl_ir_labels(a, f), n = 0;
	for (int pass = 0; pass < 2; pass++) {
		uint32_t k = 0;
		for (uint32_t j = 0; j < f->nins; j++) {
			const struct kl_ir_ins *in = &f->ins[j];
			if ((in->op != IR_JMP && in->op != IR_BR) || in->label > f->nlabels || !at[in->label] ||
			    at[in->label] - 1 >= j)
				continue;
			uint32_t h = at[in->label] - 1;
			if (c && !kl_cfg_dominates(c, c->block_of[h], c->block_of[j]))
				continue;
			if (pass)
				(*out)[k] = (struct kl_back_jump){ h, j };
			k++;
		}
		if (!pass)
			*out = kl_arena_array(a, struct kl_back_jump, (n = k) + 1);
	}
	return n;
}

uint32_t kl_cfg_back_jumps(struct kl_arena *a, const struct kl_ir_func *f, struct kl_back_jump **out)
{
	return jumps_back(a, f, NULL, out);
}

uint32_t kl_cfg_loop_jumps(struct kl_arena *a, const struct kl_cfg *c, struct kl_back_jump **out)
{
	if (!c->nblocks) {
		*out = kl_arena_array(a, struct kl_back_jump, 1);
		return 0;
	}
	return jumps_back(a, c->f, c, out);
}

uint32_t *kl_cfg_span_depth(struct kl_arena *a, const struct kl_cfg *c)
{
	const struct kl_ir_func *f = c->f;
	struct kl_back_jump *bj;
	uint32_t nbj = kl_cfg_loop_jumps(a, c, &bj);
	int32_t *delta = kl_arena_array(a, int32_t, f->nins + 1);
	for (uint32_t k = 0; k < nbj; k++) {
		delta[bj[k].head]++;
		delta[bj[k].jump + 1]--;
	}
	uint32_t *depth = kl_arena_array(a, uint32_t, f->nins + 1);
	int32_t d = 0;
	for (uint32_t i = 0; i < f->nins; i++) {
		d += delta[i];
		depth[i] = (uint32_t)d;
	}
	return depth;
}
