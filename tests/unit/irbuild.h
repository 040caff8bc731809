/* irbuild.h — IR built by hand for the unit tests of the IR's passes, its SSA form and its
 * allocator: a function, instructions (each at its own line, for spans), immediates and
 * labels. One arena per test program, A. */
#ifndef KL_TEST_IRBUILD_H
#define KL_TEST_IRBUILD_H
#include "compiler/ir.h"

static struct kl_arena A;

static inline struct kl_ir_func *ir_fn(uint32_t nvregs, uint32_t nlabels)
{
	struct kl_ir_func *f = kl_arena_new(&A, struct kl_ir_func);
	f->name = "t";
	f->nvregs = nvregs;
	f->nlabels = nlabels;
	return f;
}

static inline struct kl_ir_ins *I(struct kl_ir_func *f, uint8_t op, kl_vreg d, kl_vreg a, kl_vreg b)
{
	struct kl_ir_ins *i = kl_ir_emit(&A, f, op, (struct kl_span){ .line = f->nins + 1 });
	i->d = d, i->a = a, i->b = b;
	return i;
}

static inline struct kl_ir_ins *IMM(struct kl_ir_func *f, uint8_t op, kl_vreg d, kl_vreg a, int64_t imm)
{
	struct kl_ir_ins *i = I(f, op, d, a, 0);
	i->has_imm = true;
	i->imm = imm;
	return i;
}

static inline struct kl_ir_ins *LAB(struct kl_ir_func *f, uint8_t op, uint32_t label)
{
	struct kl_ir_ins *i = I(f, op, 0, 0, 0);
	i->label = label;
	return i;
}
#endif
