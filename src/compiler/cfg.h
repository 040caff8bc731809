/* cfg.h — the control-flow graph of an IR function (ir.h): its blocks, their edges both
 * ways, reverse postorder, the dominator tree, dominance frontiers and the natural loops
 * with their depth. SSA
 * (ssa.c), the register allocator and the optimizer's passes read these facts from here and
 * find neither blocks nor loops by themselves.
 *
 * A loop is a natural loop: a block h with a predecessor p that h dominates (a back edge
 * p -> h), and every block that reaches p without passing h. Loops form a forest; each block
 * knows its innermost loop's header and how many loops hold it. A cycle that can be entered
 * at two places (irreducible flow) has no header that dominates it: no natural loop.
 *
 * The passes that rewrite a loop in place (rotate, unroll-fold, strength, idle-exit,
 * bounds-first) work on the linear code lowering laid out, so they take a loop as its jump
 * back: a back edge whose jump goes to a label before it (kl_cfg_loop_jumps), the loop's body
 * then the span [label, jump] as laid out. The allocator weighs each instruction by how many
 * such spans hold it (kl_cfg_span_depth; the natural loops' depth of its block instead made
 * big-parser 10 instructions longer).
 *
 * One user needs another notion, named apart: globals.c keeps a defun with any jump back to
 * an earlier label (kl_cfg_back_jumps) static, loop or not. Every cycle, irreducible ones
 * too, holds such a jump, so a function with none has no loop at all, which natural loops
 * cannot promise. (A jump back need not close a cycle: merge-returns makes a later `return
 * K` jump back to an earlier one. On the corpus the two notions decide alike.) */
#ifndef KL_CFG_H
#define KL_CFG_H
#include "ir.h"

#define KL_CFG_NONE UINT32_MAX

struct kl_block {
	uint32_t first, end;        /* instructions [first, end) */
	uint32_t succ[2], nsucc;    /* a branch: succ[0] the fall-through, succ[1] the target */
	uint32_t *pred, npred;
	uint32_t idom;              /* the entry block is its own; KL_CFG_NONE: unreachable */
	uint32_t dom_first, dom_next; /* the dominator tree: first child, next sibling (+1; 0 none) */
	uint32_t dom_pre, dom_post; /* its preorder and postorder numbers in the tree */
	uint32_t rpo;               /* position in reverse postorder; KL_CFG_NONE: unreachable */
	uint32_t loop;              /* the header of the innermost natural loop holding it (a
				     * header: itself); KL_CFG_NONE: in none */
	uint32_t loop_outer;        /* a header: the header of the loop around its own (or NONE) */
	uint32_t depth;             /* how many natural loops hold it */
};

struct kl_cfg {
	const struct kl_ir_func *f;
	struct kl_block *blocks;
	uint32_t nblocks;
	uint32_t *block_of;         /* per instruction */
	uint32_t *rpo;              /* the reachable blocks in reverse postorder */
	uint32_t nrpo;
};

/* The blocks of f (a block starts at the first instruction, at a label other than 0 and
 * after a jump, branch or return), their edges, reverse postorder and dominators
 * (Lengauer-Tarjan with path compression), all arena-allocated: O(e log n). f is not
 * changed. The blocks' loop fields are KL_CFG_NONE and 0 until kl_cfg_loops. */
void kl_cfg_build(struct kl_arena *a, const struct kl_ir_func *f, struct kl_cfg *c);
/* The natural loops of a built c (collapsed innermost first with a union-find): each block's
 * innermost loop header, its depth, a header's outer loop. Only for who reads them: every
 * pass builds a cfg, and none of the passes needs these yet. */
void kl_cfg_loops(struct kl_arena *a, struct kl_cfg *c);
/* Whether block x dominates block y (false when either is unreachable). */
bool kl_cfg_dominates(const struct kl_cfg *c, uint32_t x, uint32_t y);
/* The dominance frontier of each reachable block (where its dominance ends: the joins it
 * reaches but does not strictly dominate), for placing phis: block b's are
 * blocks[at[b] .. at[b + 1]). Arena-allocated; its size (linear for structured flow). */
struct kl_cfg_frontiers {
	uint32_t *at, *blocks;
};
struct kl_cfg_frontiers kl_cfg_frontiers(struct kl_arena *a, const struct kl_cfg *c);

/* A jump back: the jump or branch at instruction `jump` to the label at `head` < jump. */
struct kl_back_jump {
	uint32_t head, jump;
};
/* The jumps back of c's natural loops: their back edges that jump to a label before them,
 * in the order of their jumps (*out, arena-allocated); their number. */
uint32_t kl_cfg_loop_jumps(struct kl_arena *a, const struct kl_cfg *c, struct kl_back_jump **out);
/* Per instruction of c's function: how many loop jumps' spans [head, jump] hold it. */
uint32_t *kl_cfg_span_depth(struct kl_arena *a, const struct kl_cfg *c);
/* Every jump or branch of f to a label before it, loop or not, in order (*out); their number. */
uint32_t kl_cfg_back_jumps(struct kl_arena *a, const struct kl_ir_func *f, struct kl_back_jump **out);
#endif
