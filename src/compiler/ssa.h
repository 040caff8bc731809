/* ssa.h — the IR's SSA form, as an overlay on the linear IR (ir.h) and its CFG (cfg.h).
 *
 * Blocks, edges and the dominator tree are cfg.c's; phis go where the iterated dominance
 * frontiers of a name's definitions say (semi-pruned: only names read in a block before it
 * defines them); renaming walks the dominator tree.
 * Names are renamed to *values*, not rewritten: every definition and phi is a value, and
 * every read of a vreg is told which value it reads. Memory is three names of its own
 * (the stack, other memory, the maps' elements), defined by the stores and calls that may
 * change them and read by loads and lookups, so a load is a function of its base's value
 * and a memory value, as a pure operation is of its operands'.
 *
 * A pass that rewrites the IR from these facts keeps the instructions' vregs, so leaving SSA
 * is dropping the overlay: no copies to insert, nothing for the allocator to coalesce. What a
 * pass may write is what stays true of the vregs: a read given a constant, a recomputation
 * turned into a copy of a vreg that still holds the same value there (kl_ssa_holds answers
 * that during a dominator-tree walk). kl_ssa_verify checks the form's invariants. */
#ifndef KL_SSA_H
#define KL_SSA_H
#include "cfg.h"

/* The memory names, numbered after the function's vregs (nvregs + KL_MEM_...): the stack;
 * the context, packets and kernel memory; what map lookups and ring buffer reserves return;
 * the maps' elements (which exist); and "calls", which every call defines and loads read,
 * for a pass to tell a load from another with a call between. A vreg's region says which of
 * the first three it may point into (KL_REGION_... bits: 1 << KL_MEM_...). */
enum { KL_MEM_STACK, KL_MEM_HEAP, KL_MEM_MAPVAL, KL_MEM_MAPS, KL_MEM_CALLS, KL_MEM_N };
enum { KL_REGION_ALL = (1 << KL_MEM_STACK) | (1 << KL_MEM_HEAP) | (1 << KL_MEM_MAPVAL) };

struct kl_phi {
	uint32_t var;               /* a vreg, or nvregs + KL_MEM_... */
	uint32_t block, val;        /* its block, the value it defines */
	uint32_t *args;             /* the value from each predecessor, in pred order (0: none) */
};

/* A value: defined by an instruction, a phi, or the function's entry (memory only). */
enum kl_val_kind { KL_VAL_NONE, KL_VAL_INS, KL_VAL_PHI, KL_VAL_ENTRY };
struct kl_val {
	uint8_t kind;
	uint32_t var;
	uint32_t at;                /* the instruction or the phi */
	uint32_t block;
};

struct kl_ssa {
	const struct kl_ir_func *f;
	struct kl_cfg cfg;          /* the blocks, their edges, dominators and loops (cfg.h) */
	struct kl_phi *phis;        /* grouped by block: block b's are phis[phi_at[b] .. phi_at[b + 1]) */
	uint32_t nphis;
	uint32_t *phi_at;
	struct kl_val *vals;        /* value 0: undefined (a read no definition reaches) */
	uint32_t nvals;
	uint32_t *def_val;          /* per instruction: the value it defines (0: none) */
	uint32_t *use_at;           /* per instruction: its reads' values are use_val[use_at[i] ..],
				     * in kl_ir_operands' order */
	uint32_t *use_val;
	uint32_t (*mem_in)[KL_MEM_N]; /* per instruction: the memory values before it */
	uint32_t (*mem_def)[KL_MEM_N]; /* per instruction: the memory values it defines (0: none) */
	uint32_t nvars;             /* nvregs + KL_MEM_N */
	const uint8_t *region;      /* per vreg: where it may point (KL_REGION_ALL when unknown) */
};

/* Builds the CFG (cfg.h) and the SSA values of f (arena-allocated; f is not changed). */
void kl_ssa_build(struct kl_arena *a, const struct kl_ir_func *f, struct kl_ssa *s);
/* The value instruction i reads for its k-th operand (kl_ir_operands' order). */
static inline uint32_t kl_ssa_use(const struct kl_ssa *s, uint32_t i, uint32_t k)
{
	return s->use_val[s->use_at[i] + k];
}
/* Which memory names instruction in reads and may write (bit KL_MEM_...); base_region: where
 * its base vreg may point. */
void kl_ssa_mem_effects(const struct kl_ir_ins *in, uint8_t base_region, uint32_t *reads, uint32_t *writes);
/* The form's invariants, checked: the CFG's edges both ways, every block's immediate
 * dominator dominating its predecessors, one definition per value, every phi with one
 * argument per predecessor whose definition dominates that predecessor, every read's value
 * of the vreg read with a definition that dominates it (before it, in its block). 0, or -1
 * with what is wrong in why. */
int kl_ssa_verify(const struct kl_ssa *s, char *why, size_t n);
void kl_ssa_dump(const struct kl_ssa *s, FILE *out);

/* A walk of the dominator tree in preorder that knows, at each instruction, which value
 * each vreg holds: the renaming's stacks kept for passes (gvn). */
struct kl_ssa_walk {
	const struct kl_ssa *s;
	uint32_t *cur;              /* per var: the value it holds here */
	uint32_t *undo, nundo;      /* (var, old value) pairs */
	uint32_t *stack, nstack;    /* blocks to visit, and undo marks */
	uint32_t *mark;
	uint32_t prev;              /* the block walked last */
};
void kl_ssa_walk_begin(struct kl_arena *a, const struct kl_ssa *s, struct kl_ssa_walk *w);
/* The next block in dominator-tree preorder (its phis already in cur), or UINT32_MAX. */
uint32_t kl_ssa_walk_next(struct kl_ssa_walk *w);
/* After instruction i of the current block: what it defines now held. */
void kl_ssa_walk_step(struct kl_ssa_walk *w, uint32_t i);
/* Whether vreg v holds value val at the walk's point. */
static inline bool kl_ssa_holds(const struct kl_ssa_walk *w, kl_vreg v, uint32_t val)
{
	return v && w->cur[v] == val;
}
#endif
