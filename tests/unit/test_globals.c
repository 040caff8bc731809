/* test_globals.c — which defuns globals.c makes global functions (checked once, alone, by
 * the verifier), on IR built by hand: a defun of arithmetic on its arguments called by a
 * program that only stores its result; and each thing that keeps one static: an argument
 * used as an address, passed to a helper or to a static defun, stored on the stack; a result
 * used as an address, in a branch, as the return of a program whose return is checked; a
 * loop; an address taken; no call at all. */
#include "check.h"
#include "irbuild.h"
#include "compiler/globals.h"
#include <linux/bpf.h>

enum { G, CALLER };   /* the defun at index 0, its caller (a program) at 1 */

/* g(a0) = (a0 & 0xffff) + (a0 >> 16), with `tweak` applied to a0 first */
static struct kl_ir_func *defun(int tweak)
{
	struct kl_ir_func *f = ir_fn(16, 4);
	I(f, IR_ENTRY, 1, 0, 0);
	switch (tweak) {
	case 1:   /* an address */
		I(f, IR_LOAD, 2, 1, 0)->size = 1;
		break;
	case 2: {   /* a helper's argument */
		struct kl_ir_ins *c = I(f, IR_CALL, 2, 0, 0);
		c->imm = BPF_FUNC_get_prandom_u32, c->nargs = 1, c->args[0] = 1;
		break;
	}
	case 3: {   /* a static defun's (itself, index 0: not global while this is checked) */
		struct kl_ir_ins *c = I(f, IR_CALLF, 2, 0, 0);
		c->imm = 2, c->nargs = 1, c->args[0] = 1;
		break;
	}
	case 4: {   /* stored on the stack */
		I(f, IR_ADDR, 3, 0, 0)->slot = 1;
		I(f, IR_STORE, 0, 3, 1)->size = 8;
		IMM(f, IR_MOVI, 2, 0, 0);
		break;
	}
	case 5:   /* a loop */
		LAB(f, IR_LABEL, 1);
		IMM(f, IR_ALU, 1, 1, 1)->alu = BPF_RSH;
		IMM(f, IR_BR, 0, 1, 100)->alu = BPF_JGT, f->ins[f->nins - 1].label = 1;
		IMM(f, IR_MOVI, 2, 0, 0);
		break;
	default:   /* a store of the value into memory that is not the stack, a branch on it */
		IMM(f, IR_MOVI, 2, 0, 0);
		I(f, IR_STORE, 0, 14, 1)->size = 8;
		IMM(f, IR_BR, 0, 1, 9)->alu = BPF_JEQ, f->ins[f->nins - 1].label = 2;
		LAB(f, IR_LABEL, 2);
		break;
	}
	IMM(f, IR_ALU, 4, 1, 0xffff)->alu = BPF_AND;
	IMM(f, IR_ALU, 5, 1, 16)->alu = BPF_RSH;
	I(f, IR_ALU, 6, 4, 5)->alu = BPF_ADD;
	I(f, IR_ALU, 6, 6, 2)->alu = BPF_ADD;
	I(f, IR_RET, 0, 6, 0);
	return f;
}

/* a program: r = g(load); then the result is stored into a map value (use 0), used as an
 * address (1), in a branch (2), returned (3), or its address taken instead of a call (4),
 * or g never called (5) */
static struct kl_ir_func *caller(int use)
{
	struct kl_ir_func *f = ir_fn(16, 4);
	I(f, IR_ENTRY, 1, 0, 0);
	I(f, IR_LOAD, 2, 1, 0)->size = 4;
	if (use == 4) {
		IMM(f, IR_LDFUNC, 3, 0, 0);
	} else if (use != 5) {
		struct kl_ir_ins *c = I(f, IR_CALLF, 3, 0, 0);
		c->imm = 0, c->nargs = 1, c->args[0] = 2;
	}
	IMM(f, IR_MOVI, 4, 0, 0);
	if (use == 1) {
		I(f, IR_ALU, 5, 1, 3)->alu = BPF_ADD;
		I(f, IR_LOAD, 4, 5, 0)->size = 1;
	} else if (use == 2) {
		IMM(f, IR_BR, 0, 3, 4)->alu = BPF_JGT, f->ins[f->nins - 1].label = 1;
		LAB(f, IR_LABEL, 1);
	} else if (use == 0) {
		I(f, IR_XADD, 0, 1, 3)->size = 8;
	}
	I(f, IR_RET, 0, use == 3 ? 3 : 4, 0);
	return f;
}

static bool global_for(int tweak, int use, bool any_return)
{
	struct kl_ir_func *fs[3] = { defun(tweak), caller(use), defun(0) };
	bool global[3], anyr[3] = { false, any_return, false };
	kl_globals(&A, fs, 2 + (tweak == 3), 1, anyr, global);
	return global[0];
}

int main(void)
{
	CHECK("globals/scalar-defun", global_for(0, 0, false), "a defun of arithmetic on its argument stays static");
	CHECK("globals/returned-unchecked", global_for(0, 3, true),
	      "a result an XDP program returns (no range checked) kept the defun static");
	static const struct { int tweak, use; const char *name; } statics[] = {
		{ 1, 0, "globals/arg-address" }, { 2, 0, "globals/arg-to-helper" }, { 3, 0, "globals/arg-to-static" },
		{ 4, 0, "globals/arg-on-stack" }, { 5, 0, "globals/loop" }, { 0, 1, "globals/result-address" },
		{ 0, 2, "globals/result-branch" }, { 0, 3, "globals/result-returned" }, { 0, 4, "globals/address-taken" },
		{ 0, 5, "globals/not-called" },
	};
	for (size_t i = 0; i < sizeof(statics) / sizeof(statics[0]); i++)
		CHECK(statics[i].name, !global_for(statics[i].tweak, statics[i].use, false), "made global");
	kl_arena_free(&A);
	return check_failures != 0;
}
