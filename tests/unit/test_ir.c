/* test_ir.c — the IR's home (src/compiler/ir.c) on its own: building a function, the operand
 * enumeration every pass relies on (each kind of instruction: what it reads, what it
 * writes), condition inversion, byte swaps and the text dump. */
#include "check.h"
#include "compiler/ir.h"
#include <linux/bpf.h>
#include <string.h>

static struct kl_ir_ins *add(struct kl_arena *a, struct kl_ir_func *f, uint8_t op, kl_vreg d, kl_vreg x, kl_vreg y,
			     bool imm)
{
	struct kl_ir_ins *i = kl_ir_emit(a, f, op, (struct kl_span){ .line = f->nins + 1, .col = 1 });
	i->d = d;
	i->a = x;
	i->b = y;
	i->has_imm = imm;
	return i;
}

static bool ops(const struct kl_ir_ins *i, kl_vreg def, uint32_t n, kl_vreg u0, kl_vreg u1)
{
	struct kl_ir_operands u;
	kl_ir_operands(i, &u);
	return u.def == def && u.nuses == n && (n < 1 || u.uses[0] == u0) && (n < 2 || u.uses[1] == u1);
}

int main(void)
{
	struct kl_arena a = { 0 };
	struct kl_ir_func f = { .name = "t", .nvregs = 1 };
	for (int k = 0; k < 100; k++)   /* grows past its first 64 */
		add(&a, &f, IR_MOVI, 1, 0, 0, false);
	CHECK("ir/emit-grows", f.nins == 100 && f.cap >= 100 && f.ins[99].op == IR_MOVI && f.ins[99].span.line == 100,
	      "%u instructions, cap %u", f.nins, f.cap);
	f.nins = 0;
	struct kl_ir_ins *movi = add(&a, &f, IR_MOVI, 1, 0, 0, true);
	struct kl_ir_ins *alu = add(&a, &f, IR_ALU, 3, 1, 2, false);
	struct kl_ir_ins *alui = add(&a, &f, IR_ALU, 3, 1, 2, true);
	struct kl_ir_ins *load = add(&a, &f, IR_LOAD, 4, 3, 0, false);
	struct kl_ir_ins *loadslot = add(&a, &f, IR_LOAD, 4, 0, 0, false);
	struct kl_ir_ins *store = add(&a, &f, IR_STORE, 0, 4, 5, false);
	struct kl_ir_ins *storei = add(&a, &f, IR_STORE, 0, 4, 0, true);
	struct kl_ir_ins *br = add(&a, &f, IR_BR, 0, 1, 2, false);
	struct kl_ir_ins *call = add(&a, &f, IR_CALL, 6, 0, 0, false);
	call->nargs = 3;
	call->args[0] = 1, call->args[1] = 2, call->args[2] = 3;
	struct kl_ir_ins *ret = add(&a, &f, IR_RET, 0, 6, 0, false);
	struct kl_ir_ins *reti = add(&a, &f, IR_RET, 0, 0, 0, true);
	struct kl_ir_ins *jmp = add(&a, &f, IR_JMP, 0, 0, 0, false);
	CHECK("ir/operands-movi", ops(movi, 1, 0, 0, 0), "movi");
	CHECK("ir/operands-alu", ops(alu, 3, 2, 1, 2) && ops(alui, 3, 1, 1, 0), "alu");
	CHECK("ir/operands-load", ops(load, 4, 1, 3, 0) && ops(loadslot, 4, 0, 0, 0), "load");
	CHECK("ir/operands-store", ops(store, 0, 2, 4, 5) && ops(storei, 0, 1, 4, 0), "store");
	CHECK("ir/operands-br", ops(br, 0, 2, 1, 2), "br");
	struct kl_ir_operands u;
	kl_ir_operands(call, &u);
	CHECK("ir/operands-call", u.def == 6 && u.nuses == 3 && u.uses[2] == 3, "def %u, %u uses", u.def, u.nuses);
	CHECK("ir/operands-ret", ops(ret, 0, 1, 6, 0) && ops(reti, 0, 0, 0, 0) && ops(jmp, 0, 0, 0, 0), "ret/jmp");
	bool inv = true;
	static const uint8_t conds[] = { BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JLE, BPF_JGE, BPF_JLT, BPF_JSGT, BPF_JSLE, BPF_JSGE, BPF_JSLT };
	for (size_t k = 0; k < sizeof(conds); k++)
		inv = inv && kl_cond_invert(kl_cond_invert(conds[k])) == conds[k] && kl_cond_invert(conds[k]) != conds[k];
	CHECK("ir/cond-invert", inv && kl_cond_invert(BPF_JSET) == 0, "an inversion is wrong");
	CHECK("ir/bswap", kl_bswap(0x1234, 16) == 0x3412 && kl_bswap(0x11223344, 32) == 0x44332211 &&
	      kl_bswap(0x0102030405060708ull, 64) == 0x0807060504030201ull, "%llx", (unsigned long long)kl_bswap(0x1234, 16));
	uint32_t s1 = kl_ir_slot(&a, &f, 16, 8), s2 = kl_ir_slot(&a, &f, 4, 0);
	CHECK("ir/slots", s1 == 1 && s2 == 2 && f.slots[2].align == 1 && f.slots[1].size == 16, "%u %u", s1, s2);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	f.nvregs = 7;
	kl_ir_dump(&f, m);
	fclose(m);
	CHECK("ir/dump", text && strstr(text, "func t (7 vregs)") && strstr(text, "call  d=v6") && strstr(text, " v1 v2 v3"),
	      "%s", text ? text : "(none)");
	free(text);
	/* scratch memory: what a pass allocates after a mark goes at its release, what came
	 * before stays; a released block is reused, then given back by trim */
	struct kl_arena sa = { 0 };
	uint32_t *keep = kl_arena_array(&sa, uint32_t, 4);
	keep[3] = 7;
	struct kl_arena_mark mk = kl_arena_mark(&sa);
	char *big = kl_arena_array(&sa, char, 1 << 20);
	big[5] = 1;
	kl_arena_release(&sa, mk);
	char *again = kl_arena_array(&sa, char, 1 << 20);
	CHECK("ir/arena-release", keep[3] == 7 && again == big && again[5] == 0 && sa.spare == NULL,
	      "kept %u, reused %d, zeroed %d", keep[3], again == big, again[5] == 0);
	mk = kl_arena_mark(&sa);
	(void)kl_arena_array(&sa, char, 1 << 21);
	kl_arena_release(&sa, mk);
	CHECK("ir/arena-trim", sa.spare != NULL && (kl_arena_trim(&sa), sa.spare == NULL) && keep[3] == 7, "spare left");
	kl_arena_free(&sa);
	kl_arena_free(&a);
	return check_failures != 0;
}
