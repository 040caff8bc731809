/* test_ssa.c — the SSA overlay (src/compiler/ssa.c) on IR built by hand: blocks and edges,
 * immediate dominators, where phis go and what they take, which value each read sees
 * (memory too), the dominator-tree walk, and the invariant checker refusing forms broken on
 * purpose. */
#include "check.h"
#include "irbuild.h"
#include "compiler/ssa.h"
#include <linux/bpf.h>
#include <string.h>

static struct kl_ir_func *fn(void)
{
	return ir_fn(8, 4);
}

/* for (v2 = 0; v2 < 10; v2++) v3 = v1 ? 6 : 5;  return v2 */
static struct kl_ir_func *loop(void)
{
	struct kl_ir_func *f = fn();
	I(f, IR_ENTRY, 1, 0, 0);                            /* 0  b0 */
	IMM(f, IR_MOVI, 2, 0, 0);                           /* 1 */
	LAB(f, IR_LABEL, 1);                                /* 2  b1: the loop's head */
	IMM(f, IR_BR, 0, 2, 10)->alu = BPF_JGE;             /* 3 */
	f->ins[3].label = 2;
	IMM(f, IR_ALU, 2, 2, 1)->alu = BPF_ADD;             /* 4  b2 */
	IMM(f, IR_BR, 0, 1, 0)->alu = BPF_JEQ;              /* 5 */
	f->ins[5].label = 3;
	IMM(f, IR_MOVI, 3, 0, 5);                           /* 6  b3 */
	LAB(f, IR_JMP, 1);                                  /* 7 */
	LAB(f, IR_LABEL, 3);                                /* 8  b4 */
	IMM(f, IR_MOVI, 3, 0, 6);                           /* 9 */
	LAB(f, IR_JMP, 1);                                  /* 10 */
	LAB(f, IR_LABEL, 2);                                /* 11 b5 */
	I(f, IR_RET, 0, 2, 0);                              /* 12 */
	return f;
}

static void test_loop(void)
{
	struct kl_ir_func *f = loop();
	struct kl_ssa s;
	kl_ssa_build(&A, f, &s);
	char why[200] = "";
	CHECK("ssa/loop-69", kl_ssa_verify(&s, why, sizeof(why)) == 0, "%s", "kl_ssa_verify(&s, why, sizeof(why)) == 0");
	CHECK("ssa/loop-why-70", !why[0], "%s", why);
	CHECK("ssa/loop-71", s.cfg.nblocks == 6, "%s", "s.cfg.nblocks == 6");
	CHECK("ssa/loop-72", s.cfg.nrpo == 6, "%s", "s.cfg.nrpo == 6");
	static const uint32_t idom[] = { 0, 0, 1, 2, 2, 1 };
	for (uint32_t b = 0; b < 6; b++)
		CHECK("ssa/loop-75", s.cfg.blocks[b].idom == idom[b], "%s", "s.cfg.blocks[b].idom == idom[b]");
	CHECK("ssa/loop-76", s.cfg.blocks[1].npred == 3 && s.cfg.blocks[2].nsucc == 2 && s.cfg.blocks[5].nsucc == 0, "%s", "s.cfg.blocks[1].npred == 3 && s.cfg.blocks[2].nsucc == 2 && s.cfg.blocks[5].nsucc == 0");
	CHECK("ssa/loop-77", kl_cfg_dominates(&s.cfg, 1, 4) && !kl_cfg_dominates(&s.cfg, 3, 5) && kl_cfg_dominates(&s.cfg, 2, 2), "%s", "kl_cfg_dominates(&s.cfg, 1, 4) && !kl_cfg_dominates(&s.cfg, 3, 5) && kl_cfg_dominates(&s.cfg, 2, 2)");
	/* one phi, of v2 at the head (v3 is never read: no phi); none for memory (nothing reads it) */
	CHECK("ssa/loop-79", s.nphis == 1, "%s", "s.nphis == 1");
	CHECK("ssa/loop-80", s.phi_at[2] - s.phi_at[1] == 1 && s.phis[s.phi_at[1]].var == 2, "%s", "s.phi_at[2] - s.phi_at[1] == 1 && s.phis[s.phi_at[1]].var == 2");
	const struct kl_phi *ph = &s.phis[s.phi_at[1]];
	for (uint32_t j = 0; j < 3; j++)   /* from the entry: v2 = 0; from b3 and b4: v2 + 1 */
		CHECK("ssa/loop-83", ph->args[j] == (s.cfg.blocks[1].pred[j] == 0 ? s.def_val[1] : s.def_val[4]), "%s", "ph->args[j] == (s.cfg.blocks[1].pred[j] == 0 ? s.def_val[1] : s.def_val[4])");
	CHECK("ssa/loop-84", kl_ssa_use(&s, 3, 0) == ph->val, "%s", "kl_ssa_use(&s, 3, 0) == ph->val");    /* the test reads the phi */
	CHECK("ssa/loop-85", kl_ssa_use(&s, 4, 0) == ph->val, "%s", "kl_ssa_use(&s, 4, 0) == ph->val");    /* so does the increment */
	CHECK("ssa/loop-86", kl_ssa_use(&s, 12, 0) == ph->val, "%s", "kl_ssa_use(&s, 12, 0) == ph->val");   /* and the return */
	CHECK("ssa/loop-87", kl_ssa_use(&s, 5, 0) == s.def_val[0], "%s", "kl_ssa_use(&s, 5, 0) == s.def_val[0]");
	/* the walk: at the return, v2 holds the phi, not the increment */
	struct kl_ssa_walk w;
	kl_ssa_walk_begin(&A, &s, &w);
	uint32_t order[6], n = 0, b;
	while ((b = kl_ssa_walk_next(&w)) != UINT32_MAX) {
		order[n++] = b;
		for (uint32_t i = s.cfg.blocks[b].first; i < s.cfg.blocks[b].end; i++) {
			if (i == 12) {
				CHECK("ssa/loop-96", kl_ssa_holds(&w, 2, ph->val), "%s", "kl_ssa_holds(&w, 2, ph->val)");
				CHECK("ssa/loop-97", !kl_ssa_holds(&w, 2, s.def_val[4]), "%s", "!kl_ssa_holds(&w, 2, s.def_val[4])");
				CHECK("ssa/loop-98", kl_ssa_holds(&w, 1, s.def_val[0]), "%s", "kl_ssa_holds(&w, 1, s.def_val[0])");
			}
			kl_ssa_walk_step(&w, i);
		}
		if (b == 2)
			CHECK("ssa/loop-103", kl_ssa_holds(&w, 2, s.def_val[4]), "%s", "kl_ssa_holds(&w, 2, s.def_val[4])");
	}
	CHECK("ssa/loop-105", n == 6 && order[0] == 0 && order[1] == 1, "%s", "n == 6 && order[0] == 0 && order[1] == 1");
	/* broken on purpose: a read of a value whose definition does not dominate it */
	s.use_val[s.use_at[12]] = s.def_val[4];
	CHECK("ssa/loop-108", kl_ssa_verify(&s, why, sizeof(why)) == -1, "%s", "kl_ssa_verify(&s, why, sizeof(why)) == -1");
	CHECK("ssa/loop-109", strstr(why, "instruction 12 reads v2 from a definition that does not dominate it") != NULL, "%s", "strstr(why, \"instruction 12 reads v2 from a definition that does not dominate it\") != NULL");
	s.use_val[s.use_at[12]] = ph->val;
	/* a phi taking another name's value */
	ph->args[0] = s.def_val[0];
	CHECK("ssa/loop-113", kl_ssa_verify(&s, why, sizeof(why)) == -1, "%s", "kl_ssa_verify(&s, why, sizeof(why)) == -1");
	CHECK("ssa/loop-114", strstr(why, "a phi of v2 takes a value of v1") != NULL, "%s", "strstr(why, \"a phi of v2 takes a value of v1\") != NULL");
	ph->args[0] = s.def_val[1];
	/* an edge one way only */
	s.cfg.blocks[5].npred = 0;
	CHECK("ssa/loop-118", kl_ssa_verify(&s, why, sizeof(why)) == -1, "%s", "kl_ssa_verify(&s, why, sizeof(why)) == -1");
	CHECK("ssa/loop-119", strstr(why, "block 1 is 0 times a predecessor of its successor 5") != NULL, "%s", "strstr(why, \"block 1 is 0 times a predecessor of its successor 5\") != NULL");
	s.cfg.blocks[5].npred = 1;
	CHECK("ssa/loop-121", kl_ssa_verify(&s, why, sizeof(why)) == 0, "%s", "kl_ssa_verify(&s, why, sizeof(why)) == 0");
}

/* memory: a store to a stack slot changes the stack, not other memory; a load through the
 * context reads other memory; a helper call changes both, a map lookup neither */
static void test_memory(void)
{
	struct kl_ir_func *f = fn();
	kl_ir_slot(&A, f, 8, 8);
	I(f, IR_ENTRY, 1, 0, 0);                            /* 0 */
	struct kl_ir_ins *l = I(f, IR_LOAD, 2, 1, 0);       /* 1  ctx load */
	l->size = 4;
	struct kl_ir_ins *st = I(f, IR_STORE, 0, 0, 2);     /* 2  slot store */
	st->slot = 1, st->size = 4;
	IMM(f, IR_BR, 0, 2, 0)->alu = BPF_JEQ;              /* 3 */
	f->ins[3].label = 1;
	l = I(f, IR_LOAD, 3, 1, 0);                         /* 4  ctx load again */
	l->size = 4;
	struct kl_ir_ins *c = I(f, IR_CALL, 4, 0, 0);       /* 5  a lookup */
	c->imm = BPF_FUNC_map_lookup_elem;
	LAB(f, IR_LABEL, 1);                                /* 6 */
	l = I(f, IR_LOAD, 5, 1, 0);                         /* 7  after the join */
	l->size = 4;
	c = I(f, IR_CALL, 6, 0, 0);                         /* 8  ktime: writes nothing */
	c->imm = BPF_FUNC_ktime_get_ns;
	c = I(f, IR_CALL, 7, 0, 0);                         /* 9  probe_read: writes */
	c->imm = BPF_FUNC_probe_read_kernel;
	l = I(f, IR_LOAD, 5, 0, 0);                         /* 10 the slot */
	l->slot = 1, l->size = 4;
	I(f, IR_RET, 0, 5, 0);                              /* 11 */
	struct kl_ssa s;
	kl_ssa_build(&A, f, &s);
	char why[200] = "";
	CHECK("ssa/memory-154", kl_ssa_verify(&s, why, sizeof(why)) == 0, "%s", "kl_ssa_verify(&s, why, sizeof(why)) == 0");
	CHECK("ssa/memory-why-155", !why[0], "%s", why);
	uint32_t heap0 = s.mem_in[1][KL_MEM_HEAP];
	CHECK("ssa/memory-157", s.vals[heap0].kind == KL_VAL_ENTRY, "%s", "s.vals[heap0].kind == KL_VAL_ENTRY");
	CHECK("ssa/memory-158", s.mem_def[2][KL_MEM_STACK] && !s.mem_def[2][KL_MEM_HEAP], "%s", "s.mem_def[2][KL_MEM_STACK] && !s.mem_def[2][KL_MEM_HEAP]");
	CHECK("ssa/memory-159", s.mem_in[4][KL_MEM_HEAP] == heap0, "%s", "s.mem_in[4][KL_MEM_HEAP] == heap0");      /* the slot store did not change it */
	CHECK("ssa/memory-160", s.mem_def[5][KL_MEM_HEAP] == 0 && s.mem_def[5][KL_MEM_MAPS] == 0, "%s", "s.mem_def[5][KL_MEM_HEAP] == 0 && s.mem_def[5][KL_MEM_MAPS] == 0");
	CHECK("ssa/memory-161", s.mem_in[7][KL_MEM_HEAP] == heap0, "%s", "s.mem_in[7][KL_MEM_HEAP] == heap0");      /* no phi needed: nothing wrote it */
	CHECK("ssa/memory-162", s.mem_in[9][KL_MEM_HEAP] == heap0, "%s", "s.mem_in[9][KL_MEM_HEAP] == heap0");      /* ktime wrote nothing */
	CHECK("ssa/memory-163", s.mem_def[9][KL_MEM_STACK] && s.mem_def[9][KL_MEM_HEAP], "%s", "s.mem_def[9][KL_MEM_STACK] && s.mem_def[9][KL_MEM_HEAP]");
	CHECK("ssa/memory-164", s.mem_in[10][KL_MEM_STACK] == s.mem_def[9][KL_MEM_STACK], "%s", "s.mem_in[10][KL_MEM_STACK] == s.mem_def[9][KL_MEM_STACK]");
	/* in a defun, an argument may point into the caller's stack: a store through it changes
	 * the stack too */
	struct kl_ir_func *g = fn();
	g->subprog = true;
	kl_ir_slot(&A, g, 8, 8);
	I(g, IR_ENTRY, 1, 0, 0);
	st = I(g, IR_STORE, 0, 1, 0);
	st->has_imm = true, st->size = 4;
	l = I(g, IR_LOAD, 2, 0, 0);
	l->slot = 1, l->size = 4;
	I(g, IR_RET, 0, 2, 0);
	kl_ssa_build(&A, g, &s);
	CHECK("ssa/memory-177", kl_ssa_verify(&s, why, sizeof(why)) == 0, "%s", "kl_ssa_verify(&s, why, sizeof(why)) == 0");
	CHECK("ssa/memory-178", s.mem_def[1][KL_MEM_STACK] && s.mem_in[2][KL_MEM_STACK] == s.mem_def[1][KL_MEM_STACK], "%s", "s.mem_def[1][KL_MEM_STACK] && s.mem_in[2][KL_MEM_STACK] == s.mem_def[1][KL_MEM_STACK]");
}

/* unreachable blocks are left out; an empty function has no blocks */
static void test_unreachable(void)
{
	struct kl_ir_func *f = fn();
	IMM(f, IR_RET, 0, 0, 0);
	IMM(f, IR_MOVI, 2, 0, 1);
	I(f, IR_RET, 0, 2, 0);
	struct kl_ssa s;
	kl_ssa_build(&A, f, &s);
	char why[200];
	CHECK("ssa/unreachable-191", kl_ssa_verify(&s, why, sizeof(why)) == 0, "%s", "kl_ssa_verify(&s, why, sizeof(why)) == 0");
	CHECK("ssa/unreachable-192", s.cfg.nblocks == 2 && s.cfg.nrpo == 1 && s.cfg.blocks[1].rpo == UINT32_MAX, "%s", "s.cfg.nblocks == 2 && s.cfg.nrpo == 1 && s.cfg.blocks[1].rpo == UINT32_MAX");
	CHECK("ssa/unreachable-193", s.def_val[1] == 0, "%s", "s.def_val[1] == 0");
	kl_ssa_build(&A, fn(), &s);
	CHECK("ssa/unreachable-195", s.cfg.nblocks == 0 && kl_ssa_verify(&s, why, sizeof(why)) == 0, "%s", "s.cfg.nblocks == 0 && kl_ssa_verify(&s, why, sizeof(why)) == 0");
}

/* a read that some path reaches with no definition: refused, directly and through a phi */
static void test_undefined(void)
{
	char why[200] = "";
	struct kl_ssa s;
	struct kl_ir_func *f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_BR, 0, 1, 0)->alu = BPF_JEQ;
	f->ins[1].label = 1;
	IMM(f, IR_MOVI, 2, 0, 5);                           /* only when v1 != 0 */
	LAB(f, IR_LABEL, 1);
	I(f, IR_RET, 0, 2, 0);
	kl_ssa_build(&A, f, &s);
	CHECK("ssa/undefined-on-a-path", kl_ssa_verify(&s, why, sizeof(why)) == -1 &&
	      strstr(why, "v2 is read after block 2 but not defined on the path from block 0"), "%s", why);
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	I(f, IR_RET, 0, 3, 0);
	kl_ssa_build(&A, f, &s);
	CHECK("ssa/undefined", kl_ssa_verify(&s, why, sizeof(why)) == -1 &&
	      strstr(why, "instruction 1 reads v3, which no definition reaches"), "%s", why);
}

/* regions: an atomic add through a map lookup's result changes map values, not the packet;
 * a load of a pointer stored to the stack may point anywhere stored */
static void test_regions(void)
{
	char why[200] = "";
	struct kl_ssa s;
	struct kl_ir_func *f = fn();
	I(f, IR_ENTRY, 1, 0, 0);                            /* 0 ctx */
	struct kl_ir_ins *l = I(f, IR_LOAD, 2, 1, 0);       /* 1 data: a packet pointer */
	l->size = 4;
	struct kl_ir_ins *c = I(f, IR_CALL, 3, 0, 0);       /* 2 a lookup */
	c->imm = BPF_FUNC_map_lookup_elem;
	I(f, IR_XADD, 0, 3, 2)->size = 8;                   /* 3 through the map value */
	l = I(f, IR_LOAD, 4, 2, 0);                         /* 4 the packet again */
	l->size = 2;
	I(f, IR_RET, 0, 4, 0);
	kl_ssa_build(&A, f, &s);
	CHECK("ssa/regions-verify", kl_ssa_verify(&s, why, sizeof(why)) == 0, "%s", why);
	CHECK("ssa/regions", s.region[3] == 1 << KL_MEM_MAPVAL && s.region[2] == 1 << KL_MEM_HEAP &&
	      s.mem_def[3][KL_MEM_MAPVAL] && !s.mem_def[3][KL_MEM_HEAP] && s.mem_in[4][KL_MEM_HEAP] == s.mem_in[1][KL_MEM_HEAP],
	      "regions %u %u", s.region[2], s.region[3]);
	f = fn();
	kl_ir_slot(&A, f, 8, 8);
	I(f, IR_ENTRY, 1, 0, 0);
	c = I(f, IR_CALL, 2, 0, 0);
	c->imm = BPF_FUNC_map_lookup_elem;
	struct kl_ir_ins *st = I(f, IR_STORE, 0, 0, 2);     /* the map value's pointer to a slot */
	st->slot = 1, st->size = 8;
	l = I(f, IR_LOAD, 3, 0, 0);
	l->slot = 1, l->size = 8;
	I(f, IR_RET, 0, 3, 0);
	kl_ssa_build(&A, f, &s);
	CHECK("ssa/regions-stored", s.region[3] == ((1 << KL_MEM_HEAP) | (1 << KL_MEM_MAPVAL)), "region %u", s.region[3]);
}

int main(void)
{
	test_loop();
	test_memory();
	test_unreachable();
	test_undefined();
	test_regions();
	kl_arena_free(&A);
	return CHECK_DONE();
}
