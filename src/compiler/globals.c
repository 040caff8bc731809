/* globals.c — defuns as global functions. The verifier walks a static function again at
 * every call, with what the caller knows of its arguments; a global one it checks once,
 * alone, with every argument an unknown scalar and its result an unknown scalar to the
 * caller (big-nat's checksum helpers were walked 24 and 10 times). That is only as good
 * when neither side needed more: the defun's arguments must never become an address or a
 * helper's argument (a pointer passed in, a size), and no caller may need the result's
 * range. Both are followed over the IR the optimizer left, through arithmetic, in time
 * linear in its size. */
#include "globals.h"
#include "arena.h"
#include "cfg.h"
#include "ir.h"
#include <linux/bpf.h>
#include <string.h>

#define ROUNDS 16   /* a callee dropping can drop its callers: give up (none global) after */

/* Each vreg's reads (uses) or definitions (defs), as instruction indexes: first[v] ..
 * first[v + 1] in at[]. */
struct index {
	uint32_t *first, *at;
};

static struct index index_of(struct kl_arena *a, const struct kl_ir_func *f, bool defs)
{
	struct index x = { kl_arena_array(a, uint32_t, f->nvregs + 2), NULL };
	uint32_t *pos = kl_arena_array(a, uint32_t, f->nvregs + 1);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < f->nins; i++) {
			struct kl_ir_operands u;
			kl_ir_operands(&f->ins[i], &u);
			uint32_t n = defs ? (u.def ? 1u : 0u) : u.nuses;
			for (uint32_t k = 0; k < n; k++) {
				kl_vreg v = defs ? u.def : u.uses[k];
				if (v >= f->nvregs)
					continue;
				if (pass)
					x.at[pos[v]++] = i;
				else
					x.first[v + 1]++;
			}
		}
		if (!pass) {   /* counts to starts: v's run is first[v] .. first[v + 1] */
			for (uint32_t v = 1; v <= f->nvregs; v++)
				x.first[v] += x.first[v - 1];
			memcpy(pos, x.first, f->nvregs * sizeof(*pos));
			x.at = kl_arena_array(a, uint32_t, x.first[f->nvregs] + 1);
		}
	}
	return x;
}

static bool is_global(const bool *global, uint32_t nfun, int64_t callee)
{
	return callee >= 0 && callee < nfun && global[callee];
}

static bool carries(uint8_t op)   /* d is computed from a (and b) */
{
	return op == IR_MOV || op == IR_ALU || op == IR_ALU32 || op == IR_NEG || op == IR_END;
}

/* Vregs that hold a stack address: an ADDR, and what arithmetic makes of it. */
static bool *stack_addrs(struct kl_arena *a, const struct kl_ir_func *f, struct index uses)
{
	bool *st = kl_arena_array(a, bool, f->nvregs + 1);
	kl_vreg *work = kl_arena_array(a, kl_vreg, f->nvregs + 1);
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nins; i++)
		if (f->ins[i].op == IR_ADDR && f->ins[i].d && !st[f->ins[i].d])
			st[work[n++] = f->ins[i].d] = true;
	while (n) {
		kl_vreg v = work[--n];
		for (uint32_t k = uses.first[v]; k < uses.first[v + 1]; k++) {
			const struct kl_ir_ins *in = &f->ins[uses.at[k]];
			if (carries(in->op) && in->d && !st[in->d])
				st[work[n++] = in->d] = true;
		}
	}
	return st;
}

/* Whether a store or xadd of its value into a stack slot: a value there the verifier keeps
 * (a spill), and reads back with what it knew. */
static bool stack_store(const struct kl_ir_ins *in, const bool *stack)
{
	return (in->op == IR_STORE || in->op == IR_XADD) && (!in->a || stack[in->a]);
}

/* f's arguments, followed forward: false when one reaches an address, a stack store, a
 * helper's argument or a function's that is not global. */
static bool args_stay_scalars(struct kl_arena *a, const struct kl_ir_func *f, const bool *global, uint32_t nfun)
{
	struct index uses = index_of(a, f, false);
	bool *stack = stack_addrs(a, f, uses);
	bool *arg = kl_arena_array(a, bool, f->nvregs + 1);
	kl_vreg *work = kl_arena_array(a, kl_vreg, f->nvregs + 1);
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nins; i++)
		if (f->ins[i].op == IR_ENTRY && f->ins[i].d && !arg[f->ins[i].d])
			arg[work[n++] = f->ins[i].d] = true;
	while (n) {
		kl_vreg v = work[--n];
		for (uint32_t k = uses.first[v]; k < uses.first[v + 1]; k++) {
			const struct kl_ir_ins *in = &f->ins[uses.at[k]];
			if (carries(in->op)) {
				if (in->d && !arg[in->d])
					arg[work[n++] = in->d] = true;
			} else if (in->op == IR_LOAD || ((in->op == IR_STORE || in->op == IR_XADD) && in->a == v) ||
				   stack_store(in, stack) || in->op == IR_CALL || (in->op == IR_CALLF && !is_global(global, nfun, in->imm)) ||
				   !(in->op == IR_STORE || in->op == IR_XADD || in->op == IR_CALLF || in->op == IR_BR ||
				     in->op == IR_RET)) {
				return false;
			}
		}
	}
	return true;
}

/* In f, the calls whose result something needs the range of, followed backward from the
 * reads that need one: addresses, stack stores, branches, helpers' arguments, static
 * functions' arguments, and f's result unless f is global itself or a program whose result
 * the verifier does not check (any_return). */
static void results_needing_range(struct kl_arena *a, const struct kl_ir_func *f, bool f_global, bool any_return,
				  const bool *global, uint32_t nfun, bool *needs)
{
	struct index uses = index_of(a, f, false), defs = index_of(a, f, true);
	bool *stack = stack_addrs(a, f, uses);
	bool *need = kl_arena_array(a, bool, f->nvregs + 1);
	kl_vreg *work = kl_arena_array(a, kl_vreg, f->nvregs + 1);
	uint32_t n = 0;
#define NEED(x) do { kl_vreg v_ = (x); if (v_ && v_ < f->nvregs && !need[v_]) need[work[n++] = v_] = true; } while (0)
	for (uint32_t i = 0; i < f->nins; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		if (in->op == IR_LOAD || in->op == IR_STORE || in->op == IR_XADD)
			NEED(in->a);
		if (stack_store(in, stack) && !in->has_imm)
			NEED(in->b);
		if (in->op == IR_BR) {
			NEED(in->a);
			if (!in->has_imm)
				NEED(in->b);
		}
		if (in->op == IR_RET && !f_global && !any_return)
			NEED(in->a);
		if (in->op == IR_CALL || (in->op == IR_CALLF && !is_global(global, nfun, in->imm)))
			for (uint32_t k = 0; k < in->nargs; k++)
				NEED(in->args[k]);
	}
	while (n) {
		kl_vreg v = work[--n];
		for (uint32_t k = defs.first[v]; k < defs.first[v + 1]; k++) {
			const struct kl_ir_ins *in = &f->ins[defs.at[k]];
			if (in->op == IR_CALLF && in->imm >= 0 && in->imm < nfun)
				needs[in->imm] = true;
			else if (carries(in->op)) {
				NEED(in->a);
				if (!in->has_imm)
					NEED(in->b);
			}
		}
	}
#undef NEED
}

/* What makes a defun no global function whatever its callers do: not called (the kernel
 * need not see it), its address taken (a callback must be static), a loop (its count may
 * come from an argument), a tail call, more than 5 arguments. */
static void candidates(const struct kl_ir_func *const *fs, uint32_t nf, uint32_t nfun, bool *global)
{
	bool *called = global;   /* set first, then cleared where something rules it out */
	for (uint32_t j = 0; j < nf; j++)
		for (uint32_t i = 0; i < fs[j]->nins; i++)
			if (fs[j]->ins[i].op == IR_CALLF && fs[j]->ins[i].imm >= 0 && fs[j]->ins[i].imm < nfun)
				called[fs[j]->ins[i].imm] = true;
	for (uint32_t j = 0; j < nf; j++)
		for (uint32_t i = 0; i < fs[j]->nins; i++)
			if (fs[j]->ins[i].op == IR_LDFUNC && fs[j]->ins[i].imm >= 0 && fs[j]->ins[i].imm < nfun)
				global[fs[j]->ins[i].imm] = false;
	for (uint32_t g = 0; g < nfun; g++) {
		const struct kl_ir_func *f = fs[g];
		uint32_t nargs = 0;
		for (uint32_t i = 0; global[g] && i < f->nins; i++) {
			const struct kl_ir_ins *in = &f->ins[i];
			if (in->op == IR_ENTRY && in->imm + 1 > nargs)
				nargs = (uint32_t)in->imm + 1;
			if (in->op == IR_CALL && in->imm == BPF_FUNC_tail_call)
				global[g] = false;
		}
		if (nargs > 5)
			global[g] = false;
	}
}

void kl_globals(struct kl_arena *a, struct kl_ir_func *const *fs, uint32_t nf, uint32_t nfun, const bool *any_return,
		bool *global)
{
	memset(global, 0, nfun * sizeof(*global));
	candidates((const struct kl_ir_func *const *)fs, nf, nfun, global);
	struct kl_back_jump *bj;
	for (uint32_t g = 0; g < nfun; g++)   /* a loop: a back jump (every cycle has one; cfg.h) */
		if (global[g] && kl_cfg_back_jumps(a, fs[g], &bj))
			global[g] = false;
	bool *needs = kl_arena_array(a, bool, nfun + 1);
	for (int round = 0; round < ROUNDS; round++) {
		memset(needs, 0, nfun * sizeof(*needs));
		for (uint32_t j = 0; j < nf; j++)
			results_needing_range(a, fs[j], j < nfun && global[j], any_return && any_return[j], global, nfun, needs);
		bool changed = false;
		for (uint32_t g = 0; g < nfun; g++)
			if (global[g] && (needs[g] || !args_stay_scalars(a, fs[g], global, nfun)))
				global[g] = false, changed = true;
		if (!changed)
			return;
	}
	memset(global, 0, nfun * sizeof(*global));
}
