/* test_regalloc.c — the register allocator (src/compiler/regalloc.c) on IR built by hand:
 * values live across a call in r6-r9; with those taken, a value used often in a loop saved
 * around the calls in a caller-saved register (and stored once while it does not change),
 * one used seldom spilled; every instruction that reads a spilled value has two scratch
 * registers; a value read by nobody is dead; the frame holds the spill slots. */
#include "check.h"
#include "irbuild.h"
#include "compiler/ir.h"
#include "compiler/regalloc.h"
#include <linux/bpf.h>
#include <string.h>

static struct kl_diag D;

static struct kl_ir_func *fn(uint32_t nvregs)
{
	return ir_fn(nvregs, 4);
}

static struct kl_ir_ins *call(struct kl_ir_func *f, kl_vreg d)
{
	struct kl_ir_ins *c = I(f, IR_CALL, d, 0, 0);
	c->imm = BPF_FUNC_ktime_get_ns;
	return c;
}

static uint32_t saves_of(const struct kl_alloc *al, uint32_t at, kl_vreg v, bool *store)
{
	for (uint32_t k = al->save_at[at]; k < al->save_at[at + 1]; k++)
		if (al->save_vreg[k] == v) {
			*store = al->save_store[k];
			return 1;
		}
	return 0;
}

int main(void)
{
	/* v1..v4 live across two calls: r6-r9. v5 too, read 8 times in a loop after them:
	 * saved around both calls in r1-r5, stored before the first only. v6, across the
	 * calls and read once: spilled. */
	struct kl_ir_func *f = fn(16);
	I(f, IR_ENTRY, 10, 0, 0);                                   /* 0 */
	for (kl_vreg v = 1; v <= 6; v++) {                          /* 1..6 */
		struct kl_ir_ins *ld = I(f, IR_LOAD, v, 10, 0);
		ld->size = 4, ld->off = (int32_t)(4 * v);
	}
	call(f, 11);                                                /* 7 */
	call(f, 12);                                                /* 8 */
	struct kl_ir_ins *lab = I(f, IR_LABEL, 0, 0, 0);            /* 9: the loop */
	lab->label = 1;
	for (int k = 0; k < 8; k++)                                 /* 10..17: v5 read often */
		I(f, IR_ALU, 1, 1, 5)->alu = BPF_ADD;
	for (kl_vreg v = 2; v <= 4; v++)                            /* 18..20 */
		I(f, IR_ALU, 1, 1, v)->alu = BPF_ADD;
	struct kl_ir_ins *br = I(f, IR_BR, 0, 1, 0);                /* 21 */
	br->has_imm = true, br->imm = 1000, br->alu = BPF_JLT, br->label = 1;
	I(f, IR_ALU, 1, 1, 6)->alu = BPF_ADD;                       /* 22: v6 read once */
	I(f, IR_ALU, 1, 1, 11)->alu = BPF_ADD;                      /* 23 */
	I(f, IR_RET, 0, 1, 0);                                      /* 24 */
	struct kl_alloc al;
	CHECK("regalloc/ok", kl_regalloc(&A, &D, f, &al) == 0, "%s", D.msg);
	int callee = 0;
	for (kl_vreg v = 1; v <= 6; v++)
		callee += al.reg[v] >= 6 && al.reg[v] <= 9;
	CHECK("regalloc/callee-saved", callee == 4, "%d of v1..v6 in r6-r9", callee);
	bool store1 = false, store2 = true;
	CHECK("regalloc/saved-around-calls", al.reg[5] >= 1 && al.reg[5] <= 5 && saves_of(&al, 7, 5, &store1) &&
	      saves_of(&al, 8, 5, &store2), "v5 in r%d", al.reg[5]);
	CHECK("regalloc/saved-stored-once", store1 && !store2, "stores %d %d", store1, store2);
	/* v1-v4, v6 and the first call's result v11 live across the second call: 6 for r6-r9,
	 * the two seldom read spill (each with a slot of its own in the frame) */
	int nspill = 0;
	bool slots = true;
	static const kl_vreg across[] = { 1, 2, 3, 4, 6, 11 };
	for (int k = 0; k < 6; k++)
		if (al.reg[across[k]] == KL_REG_SPILLED) {
			nspill++;
			slots &= al.spill[across[k]] != 0;
		} else {
			slots &= al.reg[across[k]] >= 6;
		}
	CHECK("regalloc/spilled", nspill == 2 && slots && al.reg[1] >= 6 && al.frame >= 24, "%d spilled, frame %u; v1-v6 v11 in %d %d %d %d %d %d %d",
	      nspill, al.frame, al.reg[1], al.reg[2], al.reg[3], al.reg[4], al.reg[5], al.reg[6], al.reg[11]);
	CHECK("regalloc/no-saves-elsewhere", al.save_at[0] == al.save_at[7] && al.save_at[9] == al.save_at[f->nins],
	      "saves outside the calls");
	kl_vreg sp = al.reg[6] == KL_REG_SPILLED ? 6 : 11;   /* a spilled one's read: two free registers */
	uint32_t at = sp == 6 ? 22 : 23;
	uint8_t s0 = al.scratch[at][0], s1 = al.scratch[at][1];
	bool free = s0 != s1 && s0 != al.reg[1] && s1 != al.reg[1];
	CHECK("regalloc/scratch", !al.spill_mode && free, "scratch r%u r%u at the read of v%u", s0, s1, sp);
	CHECK("regalloc/dead", al.reg[12] == KL_REG_DEAD, "v12 r%d", al.reg[12]);

	/* a value read twice across one call is not worth saving: r6-r9 taken, it spills */
	f = fn(16);
	I(f, IR_ENTRY, 10, 0, 0);
	for (kl_vreg v = 1; v <= 5; v++) {
		struct kl_ir_ins *ld = I(f, IR_LOAD, v, 10, 0);
		ld->size = 4, ld->off = (int32_t)(4 * v);
	}
	call(f, 11);
	for (kl_vreg v = 2; v <= 5; v++)
		I(f, IR_ALU, 1, 1, v)->alu = BPF_ADD;
	I(f, IR_RET, 0, 1, 0);
	CHECK("regalloc/ok-2", kl_regalloc(&A, &D, f, &al) == 0, "%s", D.msg);
	int spilled = 0, saved = 0;
	for (kl_vreg v = 1; v <= 5; v++) {
		spilled += al.reg[v] == KL_REG_SPILLED;
		saved += al.reg[v] >= 0 && al.reg[v] <= 5;
	}
	CHECK("regalloc/spill-not-save", spilled == 1 && saved == 0, "%d spilled, %d saved", spilled, saved);

	/* never saved around a call that sets it: v5 is live across its second call (read
	 * after it, and before it in the loop), but that call's result is its new value */
	f = fn(24);
	I(f, IR_ENTRY, 20, 0, 0);
	for (kl_vreg v = 1; v <= 4; v++) {   /* r6-r9 taken across every call below */
		struct kl_ir_ins *ld = I(f, IR_LOAD, v, 20, 0);
		ld->size = 4, ld->off = (int32_t)(4 * v);
	}
	call(f, 5);                                       /* 5: v5 = call */
	struct kl_ir_ins *head = I(f, IR_LABEL, 0, 0, 0);
	head->label = 1;
	for (int k = 0; k < 6; k++)
		I(f, IR_ALU, 6, 6, 5)->alu = BPF_ADD;         /* v5 read often */
	call(f, 5);                                       /* 13: sets v5 again */
	struct kl_ir_ins *back = I(f, IR_BR, 0, 5, 0);
	back->has_imm = true, back->alu = BPF_JNE, back->label = 1;
	struct kl_ir_ins *top = I(f, IR_LABEL, 0, 0, 0);   /* v1-v4 read in a loop: they keep r6-r9 */
	top->label = 4;
	for (kl_vreg v = 1; v <= 4; v++)
		I(f, IR_STORE, 0, 20, v)->size = 4;
	struct kl_ir_ins *again = I(f, IR_BR, 0, 1, 0);
	again->has_imm = true, again->alu = BPF_JNE, again->label = 4;
	IMM(f, IR_RET, 0, 0, 0);
	CHECK("regalloc/ok-3", kl_regalloc(&A, &D, f, &al) == 0, "%s", D.msg);
	bool store;
	CHECK("regalloc/not-saved-across-its-call", !saves_of(&al, 13, 5, &store), "v5 in r%d saved at its call",
	      al.reg[5]);

	/* 600 bytes of slots: the 512-byte frame's error, naming the function */
	f = fn(4);
	kl_ir_slot(&A, f, 600, 8);
	I(f, IR_ADDR, 1, 0, 0)->slot = 1;
	I(f, IR_RET, 0, 1, 0);
	memset(&D, 0, sizeof(D));
	CHECK("regalloc/frame-limit", kl_regalloc(&A, &D, f, &al) == -1 && strstr(D.msg, "'t' needs 600 bytes of stack"),
	      "%s", D.msg);
	/* map keys: a 4-byte key stored as a constant sits at an 8-aligned offset of its own
	 * (the verifier then knows it); one stored from a register stays 4-aligned, sharing;
	 * with no room in the frame (key_frame 0: a defun) none moves */
	for (int var = 0; var <= 2; var++) {
		f = fn(8);
		kl_ir_slot(&A, f, 8, 8);                      /* slot 1: 8 bytes first, so fp-12 unaligned */
		kl_ir_slot(&A, f, 4, 4);                      /* slot 2: the key */
		f->slots[2].temp = true;
		f->key_frame = var == 2 ? 0 : 512;            /* a program calling no function, or a defun */
		static const bool array[1] = { true };        /* map 0 is an array */
		f->known_elems = array, f->nmaps = 1;
		I(f, IR_ENTRY, 1, 0, 0);
		struct kl_ir_ins *st = I(f, IR_STORE, 0, 0, 1);
		st->slot = 1, st->size = 8;
		st = var == 1 ? I(f, IR_STORE, 0, 0, 1) : IMM(f, IR_STORE, 0, 0, 3);
		st->slot = 2, st->size = 4;
		I(f, IR_LDMAP, 2, 0, 0);
		I(f, IR_ADDR, 3, 0, 0)->slot = 2;
		struct kl_ir_ins *c = I(f, IR_CALL, 4, 0, 0);
		c->imm = BPF_FUNC_map_lookup_elem, c->nargs = 2, c->args[0] = 2, c->args[1] = 3;
		I(f, IR_RET, 0, 4, 0);
		CHECK(var == 2 ? "regalloc/key-no-room" : var ? "regalloc/key-stays" : "regalloc/key-aligned",
		      kl_regalloc(&A, &D, f, &al) == 0 && (f->slots[2].fp_off % 8 == 0) == !var &&
			      f->slots[2].temp == (bool)var,
		      "key at fp%d", f->slots[2].fp_off);
	}
	/* x = load; y = bswap x; call; return y: y lives across the call (r6-r9); x, which dies
	 * making it, goes there too, so y is computed in place with no copy */
	f = fn(8);
	I(f, IR_ENTRY, 1, 0, 0);
	I(f, IR_LOAD, 2, 1, 0)->size = 2;
	I(f, IR_END, 3, 2, 0)->size = 16;
	call(f, 4);
	I(f, IR_ALU, 5, 3, 4)->alu = BPF_ADD;
	I(f, IR_RET, 0, 5, 0);
	CHECK("regalloc/ok-short", kl_regalloc(&A, &D, f, &al) == 0, "%s", D.msg);
	CHECK("regalloc/dies-into-saved", al.reg[3] >= 6 && al.reg[2] == al.reg[3], "x in r%d, y in r%d", al.reg[2],
	      al.reg[3]);
	kl_arena_free(&A);
	return CHECK_DONE();
}
