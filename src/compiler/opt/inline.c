/* inline.c — defuns inlined into their callers: the one pass across functions (compile.c
 * runs it, from -O1, before each function's own pipeline). A call of a defun is a
 * subprogram the verifier walks again at every call site, and costs the moves of its
 * arguments and result around a call that saves no register; inlined, the caller's passes
 * see through it. Callees first (leaves of the call graph), so an inlined body is already
 * flat. A callee is inlined when it is small or called at most twice; a caller stops
 * growing at a budget. The defun itself stays (a callback's address, other callers). */
#include "compiler/opt/passes.h"
#include "compiler/opt/inline.h"
#include <string.h>

#define INLINE_SMALL 16        /* IR instructions: a callee at most this big is always inlined */
#define INLINE_FEW_CALLS 1     /* ... as is one called once, whatever its size (nothing is duplicated) */
#define INLINE_BUDGET 8192     /* no caller grows past this many instructions by inlining */

static struct kl_ir_ins *put(struct kl_arena *a, struct kl_ir_func *nf, const struct kl_ir_ins *in)
{
	struct kl_ir_ins *o = kl_ir_emit(a, nf, in->op, in->span);
	*o = *in;
	return o;
}

/* The body of g in place of call `call` of f: g's vregs, labels and slots renumbered above
 * f's; its entry arguments moves from the call's arguments; each return a move into the
 * call's result and a jump past the body. */
static void inline_body(struct kl_arena *a, struct kl_ir_func *f, struct kl_ir_func *nf, const struct kl_ir_ins *call,
			const struct kl_ir_func *g)
{
	uint32_t vbase = f->nvregs - 1, lbase = f->nlabels, sbase = f->nslots;
	f->nvregs += g->nvregs > 0 ? g->nvregs - 1 : 0;
	f->nlabels += g->nlabels;
	uint32_t cont = ++f->nlabels;
	for (uint32_t s = 1; s <= g->nslots; s++) {
		uint32_t n = kl_ir_slot(a, f, g->slots[s].size, g->slots[s].align);
		f->slots[n].temp = g->slots[s].temp;
	}
#define V(x) ((x) ? vbase + (x) : 0)
	for (uint32_t i = 0; i < g->nins; i++) {
		struct kl_ir_ins in = g->ins[i];
		in.d = V(in.d), in.a = V(in.a), in.b = V(in.b);
		for (uint32_t k = 0; k < in.nargs; k++)
			in.args[k] = V(in.args[k]);
		if (in.slot)
			in.slot += sbase;
		if (in.label && (in.op == IR_LABEL || in.op == IR_JMP || in.op == IR_BR))
			in.label += lbase;
		if (in.op == IR_ENTRY) {   /* the argument, from the call */
			in.op = IR_MOV;
			in.a = in.imm < call->nargs ? call->args[in.imm] : 0;
			in.imm = 0;
			if (!in.a) {
				in.op = IR_MOVI;
				in.has_imm = true;
			}
		} else if (in.op == IR_RET) {
			struct kl_ir_ins mv = in;
			mv.op = in.has_imm || !in.a ? IR_MOVI : IR_MOV;
			mv.d = call->d;
			mv.has_imm = mv.op == IR_MOVI;
			if (call->d)
				put(a, nf, &mv);
			memset(&in, 0, sizeof(in));
			in.op = IR_JMP;
			in.label = cont;
			in.span = g->ins[i].span;
		}
		put(a, nf, &in);
	}
#undef V
	struct kl_ir_ins lab = { .op = IR_LABEL, .label = cont, .span = call->span };
	put(a, nf, &lab);
}

static bool calls_any(const struct kl_ir_func *f)
{
	for (uint32_t i = 0; i < f->nins; i++)
		if (f->ins[i].op == IR_CALLF)
			return true;
	return false;
}

void kl_inline(struct kl_arena *a, struct kl_ir_func **fns, uint32_t nfuns, uint32_t nall)
{
	uint32_t *ncalls = kl_arena_array(a, uint32_t, nfuns + 1);
	for (uint32_t i = 0; i < nall; i++)
		for (uint32_t k = 0; k < fns[i]->nins; k++)
			if (fns[i]->ins[k].op == IR_CALLF && (uint64_t)fns[i]->ins[k].imm < nfuns)
				ncalls[fns[i]->ins[k].imm]++;
	/* rounds: a callee is inlined once it calls nothing itself (any more); the call graph
	 * has no cycle (compile.c refuses recursion), so nfuns rounds flatten it */
	for (uint32_t round = 0; round <= nfuns; round++) {
		bool changed = false;
		for (uint32_t i = 0; i < nall; i++) {
			struct kl_ir_func *f = fns[i];
			bool any = false;
			for (uint32_t k = 0; k < f->nins && !any; k++) {
				const struct kl_ir_ins *in = &f->ins[k];
				any = in->op == IR_CALLF && (uint64_t)in->imm < nfuns && !calls_any(fns[in->imm]);
			}
			if (!any)
				continue;
			struct kl_ir_func nf = { 0 };
			for (uint32_t k = 0; k < f->nins; k++) {
				const struct kl_ir_ins *in = &f->ins[k];
				const struct kl_ir_func *g = in->op == IR_CALLF && (uint64_t)in->imm < nfuns ? fns[in->imm] : NULL;
				if (g && g != f && !calls_any(g) && (g->nins <= INLINE_SMALL || ncalls[in->imm] <= INLINE_FEW_CALLS) &&
				    nf.nins + (f->nins - k) + g->nins + 2 <= INLINE_BUDGET) {
					inline_body(a, f, &nf, in, g);
					changed = true;
				} else {
					put(a, &nf, in);
				}
			}
			f->ins = nf.ins;
			f->nins = nf.nins;
			f->cap = nf.cap;
		}
		if (!changed)
			return;
	}
}
