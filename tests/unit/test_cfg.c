/* test_cfg.c — the control-flow graph (src/compiler/cfg.c) on IR built by hand: blocks,
 * their edges both ways, reverse postorder, immediate dominators, dominance frontiers,
 * natural loops with their headers and depth (nested, a block looping on itself), flow that
 * is irreducible (a cycle with two entries: no natural loop), unreachable blocks, the loops'
 * jumps back in the linear code with the depth of their spans, and every jump back (some
 * that close no loop). */
#include "check.h"
#include "irbuild.h"
#include "compiler/cfg.h"
#include <linux/bpf.h>
#include <string.h>

#define NONE KL_CFG_NONE

static struct kl_ir_ins *br(struct kl_ir_func *f, kl_vreg a, int64_t k, uint8_t cond, uint32_t label)
{
	struct kl_ir_ins *i = IMM(f, IR_BR, 0, a, k);
	i->alu = cond;
	i->label = label;
	return i;
}

static bool same(const uint32_t *x, const uint32_t *y, uint32_t n)
{
	return !memcmp(x, y, n * sizeof(*x));
}

/* for (v1 = 0; v1 < 4; v1++) for (v2 = 0; v2 < 4; v2++) ;  return v1 */
static void test_nested(void)
{
	struct kl_ir_func *f = ir_fn(4, 4);
	IMM(f, IR_MOVI, 1, 0, 0);                           /* 0  b0 */
	LAB(f, IR_LABEL, 1);                                /* 1  b1: the outer loop's head */
	br(f, 1, 4, BPF_JGE, 4);                            /* 2 */
	IMM(f, IR_MOVI, 2, 0, 0);                           /* 3  b2 */
	LAB(f, IR_LABEL, 2);                                /* 4  b3: the inner loop's head */
	br(f, 2, 4, BPF_JGE, 3);                            /* 5 */
	IMM(f, IR_ALU, 2, 2, 1)->alu = BPF_ADD;             /* 6  b4 */
	LAB(f, IR_JMP, 2);                                  /* 7 */
	LAB(f, IR_LABEL, 3);                                /* 8  b5 */
	IMM(f, IR_ALU, 1, 1, 1)->alu = BPF_ADD;             /* 9 */
	LAB(f, IR_JMP, 1);                                  /* 10 */
	LAB(f, IR_LABEL, 4);                                /* 11 b6 */
	I(f, IR_RET, 0, 1, 0);                              /* 12 */
	struct kl_cfg c;
	kl_cfg_build(&A, f, &c);
	kl_cfg_loops(&A, &c);
	static const uint32_t first[] = { 0, 1, 3, 4, 6, 8, 11 }, end[] = { 1, 3, 4, 6, 8, 11, 13 };
	bool ranges = c.nblocks == 7;
	for (uint32_t b = 0; ranges && b < 7; b++)
		ranges = c.blocks[b].first == first[b] && c.blocks[b].end == end[b];
	CHECK("cfg/nested-blocks", ranges, "%u blocks", c.nblocks);
	CHECK("cfg/nested-block-of", c.block_of[0] == 0 && c.block_of[2] == 1 && c.block_of[7] == 4 && c.block_of[12] == 6,
	      "%u %u %u %u", c.block_of[0], c.block_of[2], c.block_of[7], c.block_of[12]);
	/* a branch: the fall-through first; a jump: its target only */
	CHECK("cfg/nested-succ", c.blocks[1].nsucc == 2 && c.blocks[1].succ[0] == 2 && c.blocks[1].succ[1] == 6 &&
	      c.blocks[4].nsucc == 1 && c.blocks[4].succ[0] == 3 && c.blocks[6].nsucc == 0, "b1 %u succs", c.blocks[1].nsucc);
	CHECK("cfg/nested-pred", c.blocks[1].npred == 2 && c.blocks[1].pred[0] == 0 && c.blocks[1].pred[1] == 5 &&
	      c.blocks[3].npred == 2 && c.blocks[3].pred[0] == 2 && c.blocks[3].pred[1] == 4, "b1 %u preds, b3 %u",
	      c.blocks[1].npred, c.blocks[3].npred);
	/* depth first from b0, the fall-through first: b4 is done first, then b5, b3, b2, b6 */
	static const uint32_t rpo[] = { 0, 1, 6, 2, 3, 5, 4 };
	CHECK("cfg/nested-rpo", c.nrpo == 7 && same(c.rpo, rpo, 7), "%u reachable", c.nrpo);
	bool pos = true;
	for (uint32_t r = 0; r < c.nrpo; r++)
		pos &= c.blocks[c.rpo[r]].rpo == r;
	CHECK("cfg/nested-rpo-pos", pos, "%s", "a block's rpo is not its place in rpo[]");
	static const uint32_t idom[] = { 0, 0, 1, 2, 3, 3, 1 };
	bool doms = true;
	for (uint32_t b = 0; b < 7; b++)
		doms &= c.blocks[b].idom == idom[b];
	CHECK("cfg/nested-idom", doms, "%s", "immediate dominators");
	CHECK("cfg/nested-dominates", kl_cfg_dominates(&c, 1, 4) && kl_cfg_dominates(&c, 3, 5) &&
	      !kl_cfg_dominates(&c, 4, 5) && !kl_cfg_dominates(&c, 6, 1) && kl_cfg_dominates(&c, 2, 2), "%s", "dominance");
	static const uint32_t loop[] = { NONE, 1, 1, 3, 3, 1, NONE }, depth[] = { 0, 1, 1, 2, 2, 1, 0 };
	bool loops = true;
	for (uint32_t b = 0; b < 7; b++)
		loops &= c.blocks[b].loop == loop[b] && c.blocks[b].depth == depth[b];
	CHECK("cfg/nested-loops", loops, "%s", "innermost headers and depths");
	CHECK("cfg/nested-outer", c.blocks[3].loop_outer == 1 && c.blocks[1].loop_outer == NONE, "b3's outer %u",
	      c.blocks[3].loop_outer);
	/* the frontiers: b1 {b1}, b2 {b1}, b3 {b1, b3}, b4 {b3}, b5 {b1} */
	struct kl_cfg_frontiers df = kl_cfg_frontiers(&A, &c);
	static const uint32_t df_at[] = { 0, 0, 1, 2, 4, 5, 6, 6 }, df_blocks[] = { 1, 1, 1, 3, 3, 1 };
	CHECK("cfg/nested-frontiers", same(df.at, df_at, 8) && same(df.blocks, df_blocks, 6), "b3's from %u to %u",
	      df.at[3], df.at[4]);
	struct kl_back_jump *bj;
	uint32_t n = kl_cfg_loop_jumps(&A, &c, &bj);
	CHECK("cfg/nested-loop-jumps", n == 2 && bj[0].head == 4 && bj[0].jump == 7 && bj[1].head == 1 && bj[1].jump == 10,
	      "%u loop jumps", n);
	CHECK("cfg/nested-back-jumps", kl_cfg_back_jumps(&A, f, &bj) == 2, "%s", "not the loops' two");
	uint32_t *sd = kl_cfg_span_depth(&A, &c);
	CHECK("cfg/nested-span-depth", sd[0] == 0 && sd[1] == 1 && sd[3] == 1 && sd[4] == 2 && sd[7] == 2 && sd[8] == 1 &&
	      sd[10] == 1 && sd[11] == 0, "%u %u %u %u", sd[1], sd[4], sd[8], sd[11]);
}

/* b0 enters a cycle between b1 and b2 at either: no block of it dominates the other, so
 * it is no natural loop, though b2 jumps back to b1 in the linear code */
static void test_irreducible(void)
{
	struct kl_ir_func *f = ir_fn(4, 4);
	I(f, IR_ENTRY, 1, 0, 0);                            /* 0  b0 */
	br(f, 1, 0, BPF_JEQ, 2);                            /* 1 */
	LAB(f, IR_LABEL, 1);                                /* 2  b1 */
	IMM(f, IR_MOVI, 2, 0, 1);                           /* 3 */
	br(f, 1, 5, BPF_JEQ, 3);                            /* 4 */
	LAB(f, IR_LABEL, 2);                                /* 5  b2 */
	IMM(f, IR_MOVI, 2, 0, 2);                           /* 6 */
	br(f, 1, 6, BPF_JEQ, 1);                            /* 7 */
	LAB(f, IR_LABEL, 3);                                /* 8  b3 */
	I(f, IR_RET, 0, 2, 0);                              /* 9 */
	struct kl_cfg c;
	kl_cfg_build(&A, f, &c);
	kl_cfg_loops(&A, &c);
	CHECK("cfg/irreducible-blocks", c.nblocks == 4 && c.nrpo == 4, "%u blocks, %u reachable", c.nblocks, c.nrpo);
	CHECK("cfg/irreducible-idom", c.blocks[1].idom == 0 && c.blocks[2].idom == 0 && c.blocks[3].idom == 0,
	      "%u %u %u", c.blocks[1].idom, c.blocks[2].idom, c.blocks[3].idom);
	CHECK("cfg/irreducible-preds", c.blocks[1].npred == 2 && c.blocks[2].npred == 2 && c.blocks[3].npred == 2,
	      "%u %u %u", c.blocks[1].npred, c.blocks[2].npred, c.blocks[3].npred);
	bool none = true;
	for (uint32_t b = 0; b < 4; b++)
		none &= c.blocks[b].loop == NONE && c.blocks[b].depth == 0;
	CHECK("cfg/irreducible-no-loop", none, "%s", "a natural loop found in a cycle with two entries");
	struct kl_back_jump *bj;
	CHECK("cfg/irreducible-back-jump", kl_cfg_back_jumps(&A, f, &bj) == 1 && bj[0].head == 2 && bj[0].jump == 7,
	      "%s", "the jump from b2 back to b1");
	CHECK("cfg/irreducible-no-loop-jump", kl_cfg_loop_jumps(&A, &c, &bj) == 0, "%s", "a loop's jump back found");
}

/* b1 loops on itself; b3, after the return, jumps into it but is never reached */
static void test_unreachable(void)
{
	struct kl_ir_func *f = ir_fn(4, 4);
	IMM(f, IR_MOVI, 1, 0, 0);                           /* 0  b0 */
	LAB(f, IR_LABEL, 1);                                /* 1  b1 */
	IMM(f, IR_ALU, 1, 1, 1)->alu = BPF_ADD;             /* 2 */
	br(f, 1, 8, BPF_JLT, 1);                            /* 3 */
	I(f, IR_RET, 0, 1, 0);                              /* 4  b2 */
	LAB(f, IR_LABEL, 2);                                /* 5  b3 */
	LAB(f, IR_JMP, 1);                                  /* 6 */
	struct kl_cfg c;
	kl_cfg_build(&A, f, &c);
	kl_cfg_loops(&A, &c);
	CHECK("cfg/unreachable-blocks", c.nblocks == 4 && c.nrpo == 3, "%u blocks, %u reachable", c.nblocks, c.nrpo);
	const struct kl_block *u = &c.blocks[3];
	CHECK("cfg/unreachable-marks", u->rpo == NONE && u->idom == NONE && u->loop == NONE && u->depth == 0,
	      "rpo %u idom %u", u->rpo, u->idom);
	CHECK("cfg/unreachable-pred", c.blocks[1].npred == 3 && c.blocks[1].pred[2] == 3, "%u preds", c.blocks[1].npred);
	CHECK("cfg/unreachable-not-dominated", !kl_cfg_dominates(&c, 0, 3) && !kl_cfg_dominates(&c, 3, 3), "%s",
	      "an unreachable block dominated");
	CHECK("cfg/self-loop", c.blocks[1].loop == 1 && c.blocks[1].depth == 1 && c.blocks[0].depth == 0 &&
	      c.blocks[2].loop == NONE, "loop %u depth %u", c.blocks[1].loop, c.blocks[1].depth);
	/* b3's jump back is one, but no loop's: b3 is not reached */
	struct kl_back_jump *bj;
	CHECK("cfg/unreachable-back-jumps", kl_cfg_back_jumps(&A, f, &bj) == 2, "%s", "not the two");
	CHECK("cfg/unreachable-loop-jumps", kl_cfg_loop_jumps(&A, &c, &bj) == 1 && bj[0].jump == 3, "%s", "not the branch");
	uint32_t *sd = kl_cfg_span_depth(&A, &c);
	CHECK("cfg/unreachable-span-depth", sd[0] == 0 && sd[1] == 1 && sd[3] == 1 && sd[4] == 0 && sd[6] == 0, "%u %u %u",
	      sd[1], sd[4], sd[6]);
}

/* `return 0` in two places, the second a jump back to the first (what merge-returns makes):
 * a back jump that closes no cycle */
static void test_back_jump_no_cycle(void)
{
	struct kl_ir_func *f = ir_fn(2, 2);
	I(f, IR_ENTRY, 1, 0, 0);                            /* 0  b0 */
	br(f, 1, 0, BPF_JEQ, 2);                            /* 1 */
	LAB(f, IR_LABEL, 1);                                /* 2  b1 */
	IMM(f, IR_RET, 0, 0, 0);                            /* 3 */
	LAB(f, IR_LABEL, 2);                                /* 4  b2 */
	LAB(f, IR_JMP, 1);                                  /* 5 */
	struct kl_cfg c;
	kl_cfg_build(&A, f, &c);
	kl_cfg_loops(&A, &c);
	bool none = c.nblocks == 3;
	for (uint32_t b = 0; none && b < 3; b++)
		none = c.blocks[b].loop == NONE;
	CHECK("cfg/merged-return-no-loop", none, "%u blocks", c.nblocks);
	struct kl_back_jump *bj;
	CHECK("cfg/merged-return-back-jump", kl_cfg_back_jumps(&A, f, &bj) == 1 && bj[0].head == 2 && bj[0].jump == 5, "%s",
	      "the jump back to the first return");
	CHECK("cfg/merged-return-no-loop-jump", kl_cfg_loop_jumps(&A, &c, &bj) == 0, "%s", "a loop's jump back found");
	struct kl_ir_func *empty = ir_fn(1, 0);
	kl_cfg_build(&A, empty, &c);
	kl_cfg_loops(&A, &c);
	CHECK("cfg/empty", c.nblocks == 0 && c.nrpo == 0 && kl_cfg_loop_jumps(&A, &c, &bj) == 0, "%u blocks", c.nblocks);
}

int main(void)
{
	test_nested();
	test_irreducible();
	test_unreachable();
	test_back_jump_no_cycle();
	kl_arena_free(&A);
	return CHECK_DONE();
}
