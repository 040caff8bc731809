/* test_emit.c — the emitter (src/compiler/emit.c) on IR built by hand and allocated: a
 * load, an add of an immediate and a return become those BPF instructions; a branch's
 * offset counts the instructions it jumps over; a value kept in r1-r5 across a call is
 * stored to its slot before the call and loaded back after it, from the same offset; a spilled
 * value made from a dying one is made in that one's register, and read from there while the
 * register still holds it. */
#include "check.h"
#include "irbuild.h"
#include "compiler/compile.h"
#include "compiler/emit.h"
#include "compiler/regalloc.h"
#include <linux/bpf.h>
#include <string.h>

static struct kl_diag D;

static int emit(struct kl_ir_func *f, struct kl_alloc *al, struct kl_func *out)
{
	struct kl_comp c = { .a = &A, .d = &D };
	memset(out, 0, sizeof(*out));
	if (kl_regalloc(&A, &D, f, al))
		return -1;
	return kl_emit(&c, f, al, out);
}

/* The first instruction from `from` with this opcode, or -1. */
static int find(const struct kl_func *o, uint32_t from, uint8_t code)
{
	for (uint32_t i = from; i < o->ninsns; i++)
		if (o->insns[i].code == code)
			return (int)i;
	return -1;
}

int main(void)
{
	struct kl_alloc al;
	struct kl_func o;

	/* r? = *(u32 *)(ctx + 4); r? += 5; return it */
	struct kl_ir_func *f = ir_fn(8, 2);
	I(f, IR_ENTRY, 1, 0, 0);
	struct kl_ir_ins *ld = I(f, IR_LOAD, 2, 1, 0);
	ld->size = 4, ld->off = 4;
	IMM(f, IR_ALU, 3, 2, 5)->alu = BPF_ADD;
	I(f, IR_RET, 0, 3, 0);
	CHECK("emit/ok", emit(f, &al, &o) == 0, "%s", D.msg);
	int l = find(&o, 0, BPF_LDX | BPF_MEM | BPF_W), add = find(&o, 0, BPF_ALU64 | BPF_ADD | BPF_K);
	int ex = find(&o, 0, BPF_JMP | BPF_EXIT);
	CHECK("emit/load-add-return", l >= 0 && o.insns[l].src_reg == 1 && o.insns[l].off == 4 && add > l &&
	      o.insns[add].imm == 5 && ex == (int)o.ninsns - 1, "ldx at %d, add at %d, exit at %d of %u", l, add, ex,
	      o.ninsns);

	/* v3 = v2 * 3; v4 = (u32)v3; return v4: one 32-bit multiply, no move; with a label
	 * between (a jump may land on the cast) the 64-bit multiply and the move stay */
	for (int landing = 0; landing <= 1; landing++) {
		f = ir_fn(8, 2);
		I(f, IR_ENTRY, 1, 0, 0);
		ld = I(f, IR_LOAD, 2, 1, 0);
		ld->size = 8;
		IMM(f, IR_ALU, 3, 2, 3)->alu = BPF_MUL;
		if (landing)
			LAB(f, IR_LABEL, 1);
		I(f, IR_ALU32, 4, 3, 0)->alu = BPF_MOV;
		I(f, IR_RET, 0, 4, 0);
		CHECK(landing ? "emit/narrow-ok-2" : "emit/narrow-ok", emit(f, &al, &o) == 0, "%s", D.msg);
		int m32 = find(&o, 0, BPF_ALU | BPF_MUL | BPF_K), m64 = find(&o, 0, BPF_ALU64 | BPF_MUL | BPF_K);
		int mov32 = find(&o, 0, BPF_ALU | BPF_MOV | BPF_X);
		if (!landing)
			CHECK("emit/narrow-32", m32 >= 0 && m64 < 0 && mov32 < 0, "mul32 %d mul64 %d mov32 %d", m32, m64, mov32);
		else
			CHECK("emit/narrow-not-at-label", m32 < 0 && m64 >= 0 && mov32 > m64, "mul32 %d mul64 %d mov32 %d", m32,
			      m64, mov32);
	}

	/* if v1 == 7 goto L; v2 = 1; v2 += 2; L: return 0: the branch skips the two */
	f = ir_fn(8, 2);
	I(f, IR_ENTRY, 1, 0, 0);
	struct kl_ir_ins *br = IMM(f, IR_BR, 0, 1, 7);
	br->alu = BPF_JEQ, br->label = 1;
	ld = I(f, IR_LOAD, 2, 1, 0);
	ld->size = 4;
	IMM(f, IR_ALU, 2, 2, 2)->alu = BPF_ADD;
	IMM(f, IR_STORE, 0, 1, 0)->size = 4;
	f->ins[f->nins - 1].b = 2, f->ins[f->nins - 1].has_imm = false;
	LAB(f, IR_LABEL, 1);
	IMM(f, IR_RET, 0, 0, 0);
	CHECK("emit/ok-2", emit(f, &al, &o) == 0, "%s", D.msg);
	int j = find(&o, 0, BPF_JMP | BPF_JEQ | BPF_K);
	int target = j >= 0 ? j + 1 + o.insns[j].off : -1;
	CHECK("emit/branch-offset", j >= 0 && o.insns[j].imm == 7 && target == find(&o, 0, BPF_ALU64 | BPF_MOV | BPF_K),
	      "jeq at %d (+%d), lands at %d", j, j >= 0 ? o.insns[j].off : 0, target);

	/* saved around a call: v1-v4 hold r6-r9 across two calls, v5 is read often after them */
	f = ir_fn(16, 2);
	I(f, IR_ENTRY, 10, 0, 0);
	for (kl_vreg v = 1; v <= 5; v++) {
		ld = I(f, IR_LOAD, v, 10, 0);
		ld->size = 4, ld->off = (int32_t)(4 * v);
	}
	struct kl_ir_ins *c1 = I(f, IR_CALL, 11, 0, 0);
	c1->imm = BPF_FUNC_ktime_get_ns;
	LAB(f, IR_LABEL, 1);
	for (int k = 0; k < 8; k++)
		I(f, IR_ALU, 1, 1, 5)->alu = BPF_ADD;
	br = IMM(f, IR_BR, 0, 1, 1000);
	br->alu = BPF_JLT, br->label = 1;
	for (kl_vreg v = 2; v <= 4; v++)
		I(f, IR_ALU, 1, 1, v)->alu = BPF_ADD;
	I(f, IR_ALU, 1, 1, 11)->alu = BPF_ADD;
	I(f, IR_RET, 0, 1, 0);
	CHECK("emit/ok-3", emit(f, &al, &o) == 0, "%s", D.msg);
	int call = find(&o, 0, BPF_JMP | BPF_CALL);
	bool stored = false, loaded = false;
	int8_t r5 = al.reg[5];
	for (int k = call - 1; k >= 0 && k >= call - 4; k--)
		stored |= o.insns[k].code == (BPF_STX | BPF_MEM | BPF_DW) && o.insns[k].src_reg == r5 &&
			  o.insns[k].dst_reg == BPF_REG_10;
	int16_t soff = 0;
	for (int k = call - 1; k >= 0 && k >= call - 4; k--)
		if (o.insns[k].code == (BPF_STX | BPF_MEM | BPF_DW) && o.insns[k].src_reg == r5)
			soff = o.insns[k].off;
	for (uint32_t k = (uint32_t)call + 1; k < o.ninsns && k <= (uint32_t)call + 3; k++)
		loaded |= o.insns[k].code == (BPF_LDX | BPF_MEM | BPF_DW) && o.insns[k].dst_reg == r5 &&
			  o.insns[k].src_reg == BPF_REG_10 && o.insns[k].off == soff;
	CHECK("emit/save-around-call", r5 >= 1 && r5 <= 5 && call > 0 && stored && loaded,
	      "v5 in r%d, call at %d, stored %d, loaded back %d", r5, call, stored, loaded);
	/* spilled: v1-v4 hold r6-r9 across two calls; v7 = bswap(v6), read once after them, spills.
	 * v6 dies making v7, so v7 is swapped in v6's register and stored from there (no move);
	 * the branch two instructions on reads that register, not the slot (nothing wrote it) */
	f = ir_fn(16, 3);
	I(f, IR_ENTRY, 10, 0, 0);
	for (kl_vreg v = 1; v <= 4; v++) {
		ld = I(f, IR_LOAD, v, 10, 0);
		ld->size = 4, ld->off = (int32_t)(4 * v);
	}
	ld = I(f, IR_LOAD, 6, 10, 0);
	ld->size = 4, ld->off = 40;
	I(f, IR_END, 7, 6, 0)->size = 32;
	IMM(f, IR_ALU, 8, 1, 1)->alu = BPF_ADD;
	br = IMM(f, IR_BR, 0, 7, 5);
	br->alu = BPF_JEQ, br->label = 2;
	I(f, IR_CALL, 11, 0, 0)->imm = BPF_FUNC_ktime_get_ns;
	I(f, IR_CALL, 12, 0, 0)->imm = BPF_FUNC_ktime_get_ns;   /* (two calls: v7 is not worth saving) */
	I(f, IR_ALU, 11, 11, 12)->alu = BPF_ADD;
	for (int k = 0; k < 3; k++)
		for (kl_vreg v = 2; v <= 4; v++)
			I(f, IR_ALU, 1, 1, v)->alu = BPF_ADD;
	I(f, IR_ALU, 1, 1, 8)->alu = BPF_ADD;
	I(f, IR_ALU, 1, 1, 7)->alu = BPF_ADD;
	I(f, IR_ALU, 1, 1, 11)->alu = BPF_ADD;
	LAB(f, IR_LABEL, 2);
	I(f, IR_RET, 0, 1, 0);
	CHECK("emit/ok-4", emit(f, &al, &o) == 0, "%s", D.msg);
	int sw = find(&o, 0, BPF_ALU | BPF_END | BPF_TO_BE), jeq = find(&o, 0, BPF_JMP | BPF_JEQ | BPF_K);
	bool in_place = sw > 0 && o.insns[sw - 1].code == (BPF_LDX | BPF_MEM | BPF_W) &&
			o.insns[sw - 1].dst_reg == o.insns[sw].dst_reg && o.insns[sw + 1].code == (BPF_STX | BPF_MEM | BPF_DW) &&
			o.insns[sw + 1].src_reg == o.insns[sw].dst_reg && o.insns[sw + 1].dst_reg == BPF_REG_10;
	CHECK("emit/spill-in-place", al.reg[7] == KL_REG_SPILLED && in_place, "v7 in %d, bswap at %d of %u", al.reg[7],
	      sw, o.ninsns);
	bool reload = false;
	for (int k = sw + 2; sw > 0 && k < jeq; k++)
		reload |= BPF_CLASS(o.insns[k].code) == BPF_LDX;
	CHECK("emit/spill-held", in_place && jeq > sw + 2 && !reload && o.insns[jeq].dst_reg == o.insns[sw].dst_reg,
	      "bswap at %d, jeq at %d on r%d, a load between %d", sw, jeq, jeq >= 0 ? o.insns[jeq].dst_reg : -1, reload);
	kl_arena_free(&A);
	return CHECK_DONE();
}
