/* test_lower_ir.c — the floor of lowering (src/compiler/lower_ir.c), alone: constant folding
 * and the identities that need no code, strength reduction, truncation to a width, an
 * immediate too wide for an instruction, scopes (shadowing, mutable variables, the unused-
 * variable warning), arity errors; and diag's expansion note, which lowering and the expand
 * stage add to an error made inside a macro's expansion. */
#include "check.h"
#include "compiler/lower_ir.h"
#include <linux/bpf.h>
#include <string.h>

static struct kl_arena arena;
static struct kl_source src = { "t.lisp", "", 0 };
static struct kl_diag diag;
static struct kl_comp comp;
static struct kl_ir_func func;

static struct lw fresh(void)
{
	diag = (struct kl_diag){ 0 };
	comp = (struct kl_comp){ .a = &arena, .d = &diag, .src = &src };
	func = (struct kl_ir_func){ .nvregs = 1 };
	return (struct lw){ .c = &comp, .f = &func };
}

static struct val op2(struct lw *l, const char *name, struct val a, struct val b)
{
	return kl_lw_arith2(l, kl_lw_find_arith(name), a, b);
}

static void folding(void)
{
	struct lw l = fresh();
	struct val v = op2(&l, "+", cval(40), cval(2));
	CHECK("lower-ir/fold", v.kind == V_CONST && v.c == 42 && func.nins == 0, "kind %d c %lld, %u ins", v.kind,
	      (long long)v.c, func.nins);
	v = op2(&l, "/", cval(7), cval(0));
	CHECK("lower-ir/fold-div-zero", v.kind == V_CONST && v.c == 0, "c %lld", (long long)v.c);

	struct val x = rval(vreg(&l));
	v = op2(&l, "+", x, cval(0));
	CHECK("lower-ir/identity-add-0", v.kind == V_REG && v.r == x.r && func.nins == 0, "%u ins", func.nins);
	v = op2(&l, "*", cval(0), x);
	CHECK("lower-ir/identity-mul-0", v.kind == V_CONST && v.c == 0 && func.nins == 0, "%u ins", func.nins);

	v = op2(&l, "*", x, cval(8));
	struct kl_ir_ins *i = &func.ins[func.nins - 1];
	CHECK("lower-ir/mul-pow2-is-shift", func.nins == 1 && i->op == IR_ALU && i->alu == BPF_LSH && i->has_imm &&
	      i->imm == 3 && v.r == i->d, "%u ins, alu %#x imm %lld", func.nins, i->alu, (long long)i->imm);
	v = op2(&l, "-", x, cval(5));
	i = &func.ins[func.nins - 1];
	CHECK("lower-ir/sub-is-add", i->alu == BPF_ADD && i->imm == -5, "alu %#x imm %lld", i->alu, (long long)i->imm);
	CHECK("lower-ir/not-an-operator", !kl_lw_find_arith("plus") && !kl_lw_find_arith(NULL), "found");
}

static void widths(void)
{
	struct lw l = fresh();
	struct val v = kl_lw_truncate(&l, cval(0x1ff), 1, false);
	CHECK("lower-ir/truncate-u8", v.kind == V_CONST && v.c == 0xff, "c %lld", (long long)v.c);
	v = kl_lw_truncate(&l, cval(0xff), 1, true);
	CHECK("lower-ir/truncate-i8", v.kind == V_CONST && v.c == -1, "c %lld", (long long)v.c);
	v = kl_lw_truncate(&l, cval(-1), 8, false);
	CHECK("lower-ir/truncate-64-is-nothing", v.c == -1 && func.nins == 0, "c %lld", (long long)v.c);
	struct val x = rval(vreg(&l));
	v = kl_lw_truncate(&l, x, 4, false);
	CHECK("lower-ir/truncate-u32-register", func.nins == 1 && func.ins[0].op == IR_ALU32 && func.ins[0].alu == BPF_MOV &&
	      v.r == func.ins[0].d, "%u ins, op %d", func.nins, func.ins[0].op);

	/* an immediate past 32 bits goes to a register first */
	l = fresh();
	x = rval(vreg(&l));
	kl_lw_alu(&l, BPF_ADD, x, cval(1LL << 40));
	CHECK("lower-ir/wide-immediate", func.nins == 2 && func.ins[0].op == IR_MOVI && func.ins[1].op == IR_ALU &&
	      !func.ins[1].has_imm && func.ins[1].b == func.ins[0].d, "%u ins", func.nins);
}

static void scopes(void)
{
	struct lw l = fresh();
	kl_lw_bind(&l, "x", cval(1), false);
	kl_lw_bind(&l, "x", cval(2), false);
	struct binding *b = kl_lw_find_var(&l, "x");
	CHECK("lower-ir/shadow", b && b->v.kind == V_CONST && b->v.c == 2, "%s", b ? "wrong value" : "not found");
	CHECK("lower-ir/unbound", !kl_lw_find_var(&l, "y"), "found");

	kl_lw_bind(&l, "m", cval(7), true);
	b = kl_lw_find_var(&l, "m");
	CHECK("lower-ir/mutable-gets-a-register", b && b->mutable && b->v.kind == V_REG && b->v.is_var &&
	      func.nins == 1 && func.ins[0].op == IR_MOVI && func.ins[0].imm == 7, "%u ins", func.nins);

	kl_lw_bind_typed(&l, "t", cval(0x1234), false, kl_type_builtin("u8"));
	b = kl_lw_find_var(&l, "t");
	CHECK("lower-ir/typed-truncates", b && b->v.c == 0x34, "c %lld", b ? (long long)b->v.c : -1LL);

	/* the unused-variable warning: a binding the user wrote and nothing read */
	struct kl_node at = { .kind = KL_N_SYM, .str = "u", .span = { &src, 3, 4 } };
	size_t mark = l.scope.len;
	kl_lw_bind(&l, "u", cval(0), false);
	l.scope.items[l.scope.len - 1].at = &at;
	kl_lw_bind(&l, "_v", cval(0), false);
	l.scope.items[l.scope.len - 1].at = &at;
	kl_lw_warn_unused(&l, mark);
	CHECK("lower-ir/warn-unused", diag.nwarnings == 1 && strstr(diag.warnings[0].msg, "'u' is bound but never used") &&
	      diag.warnings[0].span.line == 3, "%d warnings: %s", diag.nwarnings, diag.warnings[0].msg);
	CHECK("lower-ir/user-written", kl_lw_user_written(&l, &at), "not the user's");
}

static void errors(void)
{
	struct lw l = fresh();
	struct kl_node head = { .kind = KL_N_SYM, .str = "cast" }, one = { .kind = KL_N_INT, .ival = 1 };
	struct kl_node *items[] = { &head, &one };
	struct kl_node form = { .kind = KL_N_LIST, .items = items, .nitems = 2, .span = { &src, 2, 5 } };
	CHECK("lower-ir/arity-ok", !kl_lw_arity(&l, &form, 1, 2) && !diag.nerrors, "%s", diag.msg);
	CHECK("lower-ir/arity", kl_lw_arity(&l, &form, 2, 2) == -1 &&
	      !strcmp(diag.msg, "'cast' takes 2 arguments, got 1: (cast 1)") && diag.span.line == 2, "%s", diag.msg);

	/* the expansion note: added once, to the first error, unless the message names the macro */
	struct kl_span call = { &src, 9, 3 };
	diag = (struct kl_diag){ 0 };
	kl_error(&diag, call, "unknown variable 'q'");
	kl_diag_expansion_note(&diag, "mac", call);
	CHECK("lower-ir/expansion-note", !strcmp(diag.msg, "unknown variable 'q' (in the expansion of macro 'mac' at "
						   "t.lisp:9:3)"), "%s", diag.msg);
	kl_diag_expansion_note(&diag, "mac", call);
	CHECK("lower-ir/expansion-note-once", !strcmp(strstr(diag.msg, "(in"), "(in the expansion of macro 'mac' at "
						       "t.lisp:9:3)"), "%s", diag.msg);
	diag = (struct kl_diag){ 0 };
	kl_error(&diag, call, "macro 'mac' failed");
	kl_diag_expansion_note(&diag, "mac", call);
	CHECK("lower-ir/expansion-note-named", !strcmp(diag.msg, "macro 'mac' failed"), "%s", diag.msg);
	diag = (struct kl_diag){ 0 };
	kl_error(&diag, call, "e");
	kl_diag_expansion_note(&diag, "mac", (struct kl_span){ 0 });
	CHECK("lower-ir/expansion-note-no-source", !strcmp(diag.msg, "e"), "%s", diag.msg);
}

int main(void)
{
	folding();
	widths();
	scopes();
	errors();
	kl_arena_free(&arena);
	return check_failures != 0;
}
