/* test_passes.c — each optimizer pass (src/compiler/opt/) alone, before and after, on IR
 * built by hand: the instructions it must change, and one it must leave alone. The pass
 * manager is checked too: -fno-PASS skips a pass, --print-after prints after it. */
#include "check.h"
#include "irbuild.h"
#include "compiler/opt.h"
#include "compiler/opt/passes.h"
#include "compiler/opt/inline.h"
#include <linux/bpf.h>
#include <string.h>

static struct kl_ir_func *fn(void)
{
	return ir_fn(16, 8);
}

/* The instructions that are not no-op labels, as op names joined by spaces. */
static const char *shape(const struct kl_ir_func *f)
{
	static const char *const names[] = { "movi", "mov", "alu", "alu32", "neg", "end", "load", "store", "xadd",
		"addr", "ldmap", "call", "callf", "jmp", "br", "label", "ret", "entry", "ldfunc" };
	static char buf[512];
	buf[0] = 0;
	for (uint32_t i = 0; i < f->nins; i++)
		if (!(f->ins[i].op == IR_LABEL && !f->ins[i].label))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", buf[0] ? " " : "", names[f->ins[i].op]);
	return buf;
}

static void run(struct kl_ir_func *f, const char *pass)
{
	int p = kl_opt_pass_find(pass);
	struct kl_opt_config cfg = { .level = 2, .disabled = ~0ull & ~(1ull << p) };
	kl_opt(&A, f, &cfg);
}

int main(void)
{
	struct kl_ir_func *f;

	/* unreachable: what follows a return goes; a labelled target stays */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	LAB(f, IR_JMP, 1);
	IMM(f, IR_MOVI, 2, 0, 7);           /* after a jump, no label: dead */
	LAB(f, IR_LABEL, 1);
	IMM(f, IR_RET, 0, 0, 0);
	IMM(f, IR_RET, 0, 0, 1);            /* after a return: dead */
	run(f, "unreachable");
	CHECK("pass/unreachable", !strcmp(shape(f), "entry jmp label ret"), "%s", shape(f));

	/* dce: a chain of unread pure results goes, a store stays */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_MOVI, 2, 0, 5);
	I(f, IR_ALU, 3, 2, 2)->alu = BPF_ADD;   /* v3 read by nobody: v3, then v2, go */
	IMM(f, IR_STORE, 0, 1, 9)->size = 4;
	IMM(f, IR_RET, 0, 0, 0);
	run(f, "dce");
	CHECK("pass/dce", !strcmp(shape(f), "entry store ret"), "%s", shape(f));

	/* thread: `if a == 6 goto L1 ... L1: if a != 6 goto L2` — taken implies not taken, so
	 * the first jumps past the second */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	struct kl_ir_ins *b1 = IMM(f, IR_BR, 0, 1, 6);
	b1->alu = BPF_JEQ, b1->label = 1;
	IMM(f, IR_RET, 0, 0, 0);
	LAB(f, IR_LABEL, 1);
	struct kl_ir_ins *b2 = IMM(f, IR_BR, 0, 1, 6);
	b2->alu = BPF_JNE, b2->label = 2;
	IMM(f, IR_RET, 0, 0, 1);
	LAB(f, IR_LABEL, 2);
	IMM(f, IR_RET, 0, 0, 2);
	run(f, "thread");
	uint32_t l1 = f->ins[1].label, at = 0;
	for (uint32_t i = 0; i < f->nins; i++)
		if (f->ins[i].op == IR_LABEL && f->ins[i].label == l1)
			at = i;
	CHECK("pass/thread", l1 != 1 && at > 0 && f->ins[at - 1].op == IR_BR && f->ins[at + 1].op == IR_RET &&
	      f->ins[at + 1].imm == 1, "first branch to L%u at %u: %s", l1, at, shape(f));

	/* reassoc: p = q + 14; load p+9 -> load q+23 */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_ALU, 2, 1, 14)->alu = BPF_ADD;
	struct kl_ir_ins *ld = I(f, IR_LOAD, 3, 2, 0);
	ld->size = 1, ld->off = 9;
	I(f, IR_RET, 0, 3, 0);
	run(f, "reassoc");
	CHECK("pass/reassoc-access", f->ins[2].a == 1 && f->ins[2].off == 23, "load base v%u off %d", f->ins[2].a, f->ins[2].off);

	/* swap-cmp: x = bswap16(load16 p); if x == 0x0800 -> if load16 p == 0x0008 */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	I(f, IR_LOAD, 2, 1, 0)->size = 2;
	I(f, IR_END, 3, 2, 0)->size = 16;
	struct kl_ir_ins *br = IMM(f, IR_BR, 0, 3, 0x0800);
	br->alu = BPF_JEQ, br->label = 1;
	IMM(f, IR_RET, 0, 0, 0);
	LAB(f, IR_LABEL, 1);
	IMM(f, IR_RET, 0, 0, 1);
	run(f, "swap-cmp");
	CHECK("pass/swap-cmp", f->ins[3].a == 2 && f->ins[3].imm == 0x0008, "br on v%u with %#llx", f->ins[3].a,
	      (unsigned long long)f->ins[3].imm);

	/* coalesce: t = a + 1; x = t  ->  x = a + 1 (t read only there); not when t is read twice */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_ALU, 2, 1, 1)->alu = BPF_ADD;
	I(f, IR_MOV, 4, 2, 0);
	I(f, IR_RET, 0, 4, 0);
	run(f, "coalesce");
	CHECK("pass/coalesce", !strcmp(shape(f), "entry alu ret") && f->ins[1].d == 4, "%s, alu into v%u", shape(f),
	      f->ins[1].d);
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_ALU, 2, 1, 1)->alu = BPF_ADD;
	I(f, IR_MOV, 4, 2, 0);
	I(f, IR_ALU, 5, 4, 2)->alu = BPF_ADD;   /* t read again */
	I(f, IR_RET, 0, 5, 0);
	run(f, "coalesce");
	CHECK("pass/coalesce-keeps", !strcmp(shape(f), "entry alu mov alu ret"), "%s", shape(f));
	/* in place: t = x ^ y; x = t * 3  ->  x = x ^ y; x = x * 3; not when the second also
	 * reads x (x = t + x needs x's old value) */
	for (int reads_x = 0; reads_x <= 1; reads_x++) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		I(f, IR_LOAD, 2, 1, 0)->size = 8;                /* x */
		I(f, IR_LOAD, 3, 1, 0)->size = 8;                /* y */
		I(f, IR_ALU, 4, 2, 3)->alu = BPF_XOR;            /* t = x ^ y */
		if (reads_x)
			I(f, IR_ALU, 2, 4, 2)->alu = BPF_ADD;    /* x = t + x */
		else
			IMM(f, IR_ALU, 2, 4, 3)->alu = BPF_MUL;  /* x = t * 3 */
		I(f, IR_RET, 0, 2, 0);
		run(f, "coalesce");
		if (!reads_x)
			CHECK("pass/coalesce-in-place", f->ins[3].d == 2 && f->ins[4].a == 2, "v%u = ...; v%u = v%u * 3",
			      f->ins[3].d, f->ins[4].d, f->ins[4].a);
		else
			CHECK("pass/coalesce-in-place-keeps", f->ins[3].d == 4 && f->ins[4].a == 4, "v%u = ...; v%u = v%u + x",
			      f->ins[3].d, f->ins[4].d, f->ins[4].a);
	}

	/* merge-returns: two `return 0` become one and a jump */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	br = IMM(f, IR_BR, 0, 1, 3);
	br->alu = BPF_JEQ, br->label = 1;
	IMM(f, IR_RET, 0, 0, 0);
	LAB(f, IR_LABEL, 1);
	IMM(f, IR_RET, 0, 0, 0);
	run(f, "merge-returns");
	CHECK("pass/merge-returns", !strcmp(shape(f), "entry br jmp label label ret"), "%s", shape(f));

	/* branch-over-jump: if C goto L1; goto L2; L1:  ->  if !C goto L2 */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	br = IMM(f, IR_BR, 0, 1, 3);
	br->alu = BPF_JGT, br->label = 1;
	LAB(f, IR_JMP, 2);
	LAB(f, IR_LABEL, 1);
	IMM(f, IR_RET, 0, 0, 0);
	LAB(f, IR_LABEL, 2);
	IMM(f, IR_RET, 0, 0, 1);
	run(f, "branch-over-jump");
	CHECK("pass/branch-over-jump", !strcmp(shape(f), "entry br label ret label ret") && f->ins[1].alu == BPF_JLE &&
	      f->ins[1].label == 2, "%s", shape(f));

	/* propagate: v = 7 read by an ALU and a branch becomes their immediate; a copy of a
	 * once-defined vreg is read through; `if K < x` turns around */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_MOVI, 2, 0, 7);
	I(f, IR_MOV, 3, 1, 0);                    /* v3 = v1 */
	I(f, IR_ALU, 4, 3, 2)->alu = BPF_ADD;     /* v4 = v3 + v2  ->  v4 = v1 + 7 */
	br = I(f, IR_BR, 0, 2, 4);                /* if 7 < v4     ->  if v4 > 7 */
	br->alu = BPF_JLT, br->label = 1;
	IMM(f, IR_RET, 0, 0, 0);
	LAB(f, IR_LABEL, 1);
	I(f, IR_RET, 0, 2, 0);                    /* return v2     ->  return 7 */
	run(f, "propagate");
	CHECK("pass/propagate", f->ins[3].a == 1 && f->ins[3].has_imm && f->ins[3].imm == 7 && f->ins[4].alu == BPF_JGT &&
	      f->ins[4].a == 4 && f->ins[4].has_imm && f->ins[4].imm == 7 && f->ins[7].has_imm && f->ins[7].imm == 7,
	      "alu v%u imm %d %lld; br %#x v%u imm %lld", f->ins[3].a, f->ins[3].has_imm, (long long)f->ins[3].imm,
	      f->ins[4].alu, f->ins[4].a, (long long)f->ins[4].imm);
	f = fn();                                 /* a vreg set twice is not a constant */
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_MOVI, 2, 0, 7);
	IMM(f, IR_MOVI, 2, 0, 8);
	I(f, IR_ALU, 4, 1, 2)->alu = BPF_ADD;
	I(f, IR_RET, 0, 4, 0);
	run(f, "propagate");
	CHECK("pass/propagate-keeps", !f->ins[3].has_imm && f->ins[3].b == 2, "%s", shape(f));
	f = fn();                                 /* 0 + x is a copy of x; (x * 1) & 0 is 0; 0 | y is y */
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_MOVI, 2, 0, 0);
	I(f, IR_ALU, 3, 2, 1)->alu = BPF_ADD;
	IMM(f, IR_ALU, 4, 3, 1)->alu = BPF_MUL;
	IMM(f, IR_ALU, 5, 4, 0)->alu = BPF_AND;
	I(f, IR_ALU, 6, 5, 4)->alu = BPF_OR;
	I(f, IR_RET, 0, 6, 0);
	run(f, "propagate");
	/* (the pipeline runs propagate twice: the second sees the copies and the 0 the first made) */
	CHECK("pass/propagate-identities", f->ins[2].op == IR_MOV && f->ins[2].a == 1 && f->ins[3].op == IR_MOV &&
	      f->ins[3].a == 1 && f->ins[4].op == IR_MOVI && f->ins[4].imm == 0 && f->ins[5].op == IR_MOV, "%s",
	      shape(f));

	/* straight-line constants (what the fold pass did before sccp): s = 0; s += 1; s += 2 is
	 * s = 3, and a branch on it a jump */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_MOVI, 2, 0, 0);
	IMM(f, IR_ALU, 2, 2, 1)->alu = BPF_ADD;
	IMM(f, IR_ALU, 2, 2, 2)->alu = BPF_ADD;
	br = IMM(f, IR_BR, 0, 2, 3);
	br->alu = BPF_JEQ, br->label = 1;
	IMM(f, IR_RET, 0, 0, 0);
	LAB(f, IR_LABEL, 1);
	I(f, IR_RET, 0, 2, 0);
	run(f, "sccp");
	CHECK("pass/sccp-straight", f->ins[3].op == IR_MOVI && f->ins[3].imm == 3 && f->ins[4].op == IR_JMP &&
	      f->ins[7].has_imm && f->ins[7].imm == 3, "%s", shape(f));

	/* sccp: v2 is 5 on both paths into L2, so v3 = v2 + 1 is 6 after the join and the
	 * branch on it is decided (fold, within blocks, and propagate, one definition, see
	 * neither); with 6 on one path, v2 varies and stays */
	for (int same = 1; same >= 0; same--) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		br = IMM(f, IR_BR, 0, 1, 0);                 /* 1 */
		br->alu = BPF_JEQ, br->label = 1;
		IMM(f, IR_MOVI, 2, 0, 5);                    /* 2 */
		LAB(f, IR_JMP, 2);                           /* 3 */
		LAB(f, IR_LABEL, 1);                         /* 4 */
		IMM(f, IR_MOVI, 2, 0, same ? 5 : 6);         /* 5 */
		LAB(f, IR_LABEL, 2);                         /* 6 */
		IMM(f, IR_ALU, 3, 2, 1)->alu = BPF_ADD;      /* 7 */
		br = IMM(f, IR_BR, 0, 3, 6);                 /* 8 */
		br->alu = BPF_JEQ, br->label = 3;
		IMM(f, IR_RET, 0, 0, 0);                     /* 9 */
		LAB(f, IR_LABEL, 3);                         /* 10 */
		I(f, IR_RET, 0, 3, 0);                       /* 11 */
		run(f, "sccp");
		if (same)
			CHECK("pass/sccp", f->ins[7].op == IR_MOVI && f->ins[7].imm == 6 && f->ins[8].op == IR_JMP &&
			      f->ins[11].has_imm && f->ins[11].imm == 6, "%s", shape(f));
		else
			CHECK("pass/sccp-keeps", f->ins[7].op == IR_ALU && f->ins[8].op == IR_BR && !f->ins[11].has_imm,
			      "%s", shape(f));
	}
	/* a loop whose variable only ever holds 0 (v2 = v2 * 3) is 0; one counting is not */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_MOVI, 2, 0, 0);                        /* 1 */
	IMM(f, IR_MOVI, 4, 0, 0);                        /* 2 */
	LAB(f, IR_LABEL, 1);                             /* 3 */
	IMM(f, IR_ALU, 2, 2, 3)->alu = BPF_MUL;          /* 4 */
	IMM(f, IR_ALU, 4, 4, 1)->alu = BPF_ADD;          /* 5 */
	br = IMM(f, IR_BR, 0, 4, 10);                    /* 6 */
	br->alu = BPF_JLT, br->label = 1;
	I(f, IR_ALU, 5, 4, 2)->alu = BPF_ADD;            /* 7: v4 + v2 -> v4 + 0 */
	I(f, IR_RET, 0, 5, 0);                           /* 8 */
	run(f, "sccp");
	CHECK("pass/sccp-loop", f->ins[4].op == IR_MOVI && f->ins[4].imm == 0 && f->ins[5].op == IR_ALU &&
	      f->ins[7].has_imm && f->ins[7].imm == 0 && f->ins[6].op == IR_BR, "%s", shape(f));

	/* sccp's ranges: a u16 load plus 0xabab...ab, shifted right 32, is the constant
	 * 0xabababab, and a branch on it against 0 is decided; the load against 70000 is decided,
	 * against 100 not; a u64 load plus 1 may wrap to 0: its branch stays */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	I(f, IR_LOAD, 2, 1, 0)->size = 2;                 /* 1 */
	IMM(f, IR_MOVI, 3, 0, (int64_t)0xababababababababull);
	I(f, IR_ALU, 4, 3, 2)->alu = BPF_ADD;             /* 3 */
	IMM(f, IR_ALU, 5, 4, 32)->alu = BPF_RSH;          /* 4: 0xabababab */
	br = IMM(f, IR_BR, 0, 5, 0);                      /* 5: decided, falls through */
	br->alu = BPF_JEQ, br->label = 1;
	br = IMM(f, IR_BR, 0, 2, 70000);                  /* 6: decided, falls through */
	br->alu = BPF_JGT, br->label = 1;
	br = IMM(f, IR_BR, 0, 2, 100);                    /* 7: stays */
	br->alu = BPF_JGT, br->label = 1;
	ld = I(f, IR_LOAD, 6, 1, 0);                      /* 8: u64 */
	ld->size = 8;
	IMM(f, IR_ALU, 7, 6, 1)->alu = BPF_ADD;           /* 9 */
	br = IMM(f, IR_BR, 0, 7, 0);                      /* 10: stays */
	br->alu = BPF_JEQ, br->label = 1;
	I(f, IR_RET, 0, 5, 0);
	LAB(f, IR_LABEL, 1);
	IMM(f, IR_RET, 0, 0, 1);
	run(f, "sccp");
	/* (removed instructions are compacted away) */
	CHECK("pass/sccp-ranges", !strcmp(shape(f), "entry load movi alu movi br load alu br ret label ret") &&
	      f->ins[4].imm == 0xabababab && f->ins[5].imm == 100 && f->ins[8].imm == 0, "%s", shape(f));

	/* gvn: the same load again is a copy of the first, in its block or in one it
	 * dominates; not across a store to the memory it reads */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	ld = I(f, IR_LOAD, 2, 1, 0);
	ld->size = 4, ld->off = 8;
	ld = I(f, IR_LOAD, 3, 1, 0);
	ld->size = 4, ld->off = 8;                /* 2 -> v3 = v2 */
	IMM(f, IR_STORE, 0, 1, 0)->size = 4;
	ld = I(f, IR_LOAD, 4, 1, 0);
	ld->size = 4, ld->off = 8;                /* 4: after a store: loaded again */
	LAB(f, IR_LABEL, 1);
	ld = I(f, IR_LOAD, 5, 1, 0);
	ld->size = 4, ld->off = 8;                /* 6: a block the store's dominates -> v5 = v4 */
	struct kl_ir_ins *st = I(f, IR_STORE, 0, 0, 5);
	st->slot = 1, st->size = 4;               /* 7: a stack slot: not the context's memory */
	ld = I(f, IR_LOAD, 6, 1, 0);
	ld->size = 4, ld->off = 8;                /* 8 -> v6 = v4 */
	I(f, IR_RET, 0, 6, 0);
	f->nslots = 1;
	f->slots = kl_arena_array(&A, struct kl_slot, 2);
	f->slots[1].size = 4;
	run(f, "gvn");
	CHECK("pass/gvn-loads", f->ins[2].op == IR_MOV && f->ins[2].a == 2 && f->ins[4].op == IR_LOAD &&
	      f->ins[6].op == IR_MOV && f->ins[6].a == 4 && f->ins[8].op == IR_MOV && f->ins[8].a == 4, "%s", shape(f));
	/* ... not after a join where one path stored; a recomputed address is a copy (the
	 * bounds check on the first holds for it) unless its register was overwritten */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	ld = I(f, IR_LOAD, 2, 1, 0);
	ld->size = 4;                             /* 1 */
	br = IMM(f, IR_BR, 0, 2, 0);              /* 2 */
	br->alu = BPF_JEQ, br->label = 1;
	IMM(f, IR_STORE, 0, 1, 7)->size = 4;      /* 3: one path stores */
	LAB(f, IR_LABEL, 1);                      /* 4 */
	ld = I(f, IR_LOAD, 3, 1, 0);
	ld->size = 4;                             /* 5: loaded again */
	IMM(f, IR_ALU, 4, 2, 14)->alu = BPF_ADD;  /* 6 */
	IMM(f, IR_ALU, 5, 2, 14)->alu = BPF_ADD;  /* 7 -> v5 = v4 */
	IMM(f, IR_MOVI, 4, 0, 0);                 /* 8: v4 overwritten */
	IMM(f, IR_ALU, 6, 2, 14)->alu = BPF_ADD;  /* 9 -> v6 = v5 (v5 holds it still) */
	I(f, IR_RET, 0, 6, 0);
	run(f, "gvn");
	CHECK("pass/gvn-join", f->ins[5].op == IR_LOAD && f->ins[7].op == IR_MOV && f->ins[7].a == 4 &&
	      f->ins[9].op == IR_ALU, "%s", shape(f));
	/* branches a dominating one decided: inside `if v2 == 6`, `if v2 == 6` is a jump and
	 * `if v2 != 6` nothing; a load after a call gets the same number (the branch on it is
	 * decided) but stays a load */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	ld = I(f, IR_LOAD, 2, 1, 0);
	ld->size = 2, ld->off = 12;                       /* 1 */
	br = IMM(f, IR_BR, 0, 2, 6);                      /* 2 */
	br->alu = BPF_JNE, br->label = 1;
	IMM(f, IR_CALL, 3, 0, BPF_FUNC_ktime_get_ns);     /* 3: writes no memory */
	ld = I(f, IR_LOAD, 4, 1, 0);
	ld->size = 2, ld->off = 12;                       /* 4: the same number */
	br = IMM(f, IR_BR, 0, 4, 6);                      /* 5: decided: never */
	br->alu = BPF_JNE, br->label = 1;
	br = IMM(f, IR_BR, 0, 2, 6);                      /* 6: decided: always */
	br->alu = BPF_JEQ, br->label = 2;
	IMM(f, IR_RET, 0, 0, 0);
	LAB(f, IR_LABEL, 1);
	IMM(f, IR_RET, 0, 0, 1);
	LAB(f, IR_LABEL, 2);
	I(f, IR_RET, 0, 4, 0);
	run(f, "gvn");
	CHECK("pass/gvn-branches", f->ins[4].op == IR_LOAD && f->ins[5].op == IR_JMP && f->ins[5].label == 2,
	      "%s", shape(f));
	/* map lookups: the same map and key bytes (stored into two slots), where the first's
	 * result is known not to be 0, is one lookup; an update between is not, and neither is
	 * one where the first may have been 0 (a pointer kept across its own null test is two
	 * states for the verifier) */
	for (int v = 0; v <= 2; v++) {
		bool update = v == 1, tested = v != 2;
		f = fn();
		f->nslots = 2;
		f->slots = kl_arena_array(&A, struct kl_slot, 3);
		f->slots[1].size = f->slots[2].size = 4;
		I(f, IR_ENTRY, 1, 0, 0);
		ld = I(f, IR_LOAD, 2, 1, 0);
		ld->size = 4;
		for (uint32_t k = 1; k <= 2; k++) {
			st = I(f, IR_STORE, 0, 0, 2);
			st->slot = k, st->size = 4;
			I(f, IR_LDMAP, 3 + 3 * k, 0, 0)->imm = 0;
			I(f, IR_ADDR, 4 + 3 * k, 0, 0)->slot = k;
			struct kl_ir_ins *c = I(f, IR_CALL, 5 + 3 * k, 0, 0);
			c->imm = BPF_FUNC_map_lookup_elem, c->nargs = 2;
			c->args[0] = 3 + 3 * k, c->args[1] = 4 + 3 * k;
			if (k == 1 && tested) {
				br = IMM(f, IR_BR, 0, 8, 0);
				br->alu = BPF_JEQ, br->label = 1;
			}
			if (update && k == 1) {
				c = I(f, IR_CALL, 15, 0, 0);
				c->imm = BPF_FUNC_map_delete_elem, c->nargs = 2;
				c->args[0] = 6, c->args[1] = 7;
			}
		}
		I(f, IR_RET, 0, 11, 0);
		LAB(f, IR_LABEL, 1);
		IMM(f, IR_RET, 0, 0, 0);
		run(f, "gvn");
		uint32_t last = f->nins - 4;
		if (v == 0)
			CHECK("pass/gvn-lookup", f->ins[last].op == IR_MOV && f->ins[last].a == 8, "%s", shape(f));
		else
			CHECK(update ? "pass/gvn-lookup-update" : "pass/gvn-lookup-maybe-null", f->ins[last].op == IR_CALL,
			      "%s", shape(f));
	}

	/* dse: stores to a slot nothing reads go; a store overwritten unread in its block goes,
	 * one read before the next stays */
	f = fn();
	f->nslots = 2;
	f->slots = kl_arena_array(&A, struct kl_slot, 3);
	f->slots[1].size = f->slots[2].size = 4;
	I(f, IR_ENTRY, 1, 0, 0);
	st = IMM(f, IR_STORE, 0, 0, 1);           /* 1: slot 1, never read: goes */
	st->slot = 1, st->size = 4;
	st = IMM(f, IR_STORE, 0, 0, 2);           /* 2: slot 2, overwritten unread: goes */
	st->slot = 2, st->size = 4;
	st = IMM(f, IR_STORE, 0, 0, 3);           /* 3: read at 4: stays */
	st->slot = 2, st->size = 4;
	ld = I(f, IR_LOAD, 2, 0, 0);              /* 4 */
	ld->slot = 2, ld->size = 4;
	st = IMM(f, IR_STORE, 0, 0, 4);           /* 5: read after the label: stays */
	st->slot = 2, st->size = 4;
	LAB(f, IR_LABEL, 1);
	ld = I(f, IR_LOAD, 3, 0, 0);
	ld->slot = 2, ld->size = 4;
	I(f, IR_ALU, 4, 2, 3)->alu = BPF_ADD;
	I(f, IR_RET, 0, 4, 0);
	run(f, "dse");
	CHECK("pass/dse", !strcmp(shape(f), "entry store load store label load alu ret") && f->ins[1].imm == 3,
	      "%s", shape(f));

	/* reassoc: t = p + 14; u = t + 20 -> u = p + 34; not once p is overwritten */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_ALU, 2, 1, 14)->alu = BPF_ADD;          /* 1 */
	IMM(f, IR_ALU, 3, 2, 20)->alu = BPF_ADD;          /* 2 -> v1 + 34 */
	IMM(f, IR_ALU, 4, 3, 6)->alu = BPF_SUB;           /* 3 -> v1 + 28 */
	IMM(f, IR_MOVI, 1, 0, 0);                         /* 4: v1 overwritten */
	IMM(f, IR_ALU, 5, 2, 1)->alu = BPF_ADD;           /* 5: stays v2 + 1 */
	I(f, IR_ALU, 6, 3, 4)->alu = BPF_ADD;
	I(f, IR_ALU, 6, 6, 5)->alu = BPF_ADD;
	I(f, IR_RET, 0, 6, 0);
	run(f, "reassoc");
	CHECK("pass/reassoc", f->ins[2].a == 1 && f->ins[2].imm == 34 && f->ins[3].a == 1 && f->ins[3].imm == 28 &&
	      f->ins[3].alu == BPF_ADD && f->ins[5].a == 2 && f->ins[5].imm == 1, "v%u+%lld v%u+%lld v%u+%lld",
	      f->ins[2].a, (long long)f->ins[2].imm, f->ins[3].a, (long long)f->ins[3].imm, f->ins[5].a,
	      (long long)f->ins[5].imm);

	/* adce: v2 = 0 before a branch whose both arms set v2 is dead, though v2 is read after;
	 * dce (reads per vreg) keeps it */
	for (int which = 0; which < 2; which++) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		IMM(f, IR_MOVI, 2, 0, 0);                      /* 1: dead */
		br = IMM(f, IR_BR, 0, 1, 0);                   /* 2 */
		br->alu = BPF_JEQ, br->label = 1;
		IMM(f, IR_MOVI, 2, 0, 5);
		LAB(f, IR_JMP, 2);
		LAB(f, IR_LABEL, 1);
		IMM(f, IR_MOVI, 2, 0, 6);
		LAB(f, IR_LABEL, 2);
		I(f, IR_RET, 0, 2, 0);
		run(f, which ? "adce" : "dce");
		if (which)
			CHECK("pass/adce", !strcmp(shape(f), "entry br movi jmp label movi label ret"), "%s", shape(f));
		else
			CHECK("pass/adce-not-dce", !strcmp(shape(f), "entry movi br movi jmp label movi label ret"), "%s",
			      shape(f));
	}
	/* bits: a u16 load's & 0xffff and (u32) of it are copies; & 0xff of it is not */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	ld = I(f, IR_LOAD, 2, 1, 0);
	ld->size = 2;
	IMM(f, IR_ALU, 3, 2, 0xffff)->alu = BPF_AND;      /* 2 -> v3 = v2 */
	I(f, IR_ALU32, 4, 3, 0)->alu = BPF_MOV;           /* 3 -> v4 = v3 */
	IMM(f, IR_ALU, 5, 4, 0xff)->alu = BPF_AND;        /* 4: stays */
	I(f, IR_RET, 0, 5, 0);
	run(f, "bits");
	CHECK("pass/bits", f->ins[2].op == IR_MOV && f->ins[2].a == 2 && f->ins[3].op == IR_MOV && f->ins[4].op == IR_ALU,
	      "%s", shape(f));

	/* dse: a store through a slot's address, where nothing reads the slot, goes; the same
	 * with the address passed to a call stays */
	for (int call = 0; call <= 1; call++) {
		f = fn();
		f->nslots = 1;
		f->slots = kl_arena_array(&A, struct kl_slot, 2);
		f->slots[1].size = 8;
		I(f, IR_ENTRY, 1, 0, 0);
		I(f, IR_ADDR, 2, 0, 0)->slot = 1;
		IMM(f, IR_ALU, 3, 2, 4)->alu = BPF_ADD;
		st = IMM(f, IR_STORE, 0, 3, 7);
		st->size = 4;
		if (call) {
			struct kl_ir_ins *c = I(f, IR_CALL, 4, 0, 0);
			c->imm = BPF_FUNC_get_current_comm, c->nargs = 1, c->args[0] = 2;
		}
		IMM(f, IR_RET, 0, 0, 0);
		run(f, "dse");
		bool kept = false;
		for (uint32_t i = 0; i < f->nins; i++)
			kept |= f->ins[i].op == IR_STORE;
		CHECK(call ? "pass/dse-address-to-a-call" : "pass/dse-through-address", kept == (call == 1), "%s", shape(f));
	}

	/* dse: through a slot's address, a store overwritten unread goes (a load of other bytes
	 * between); one that a load of its bytes, or a load through an unknown pointer, reads
	 * stays */
	for (int between = 0; between < 3; between++) {
		f = fn();
		f->nslots = 1;
		f->slots = kl_arena_array(&A, struct kl_slot, 2);
		f->slots[1].size = 16;
		I(f, IR_ENTRY, 1, 0, 0);
		I(f, IR_ADDR, 2, 0, 0)->slot = 1;
		IMM(f, IR_ALU, 3, 2, 4)->alu = BPF_ADD;   /* v3 = slot + 4 */
		st = IMM(f, IR_STORE, 0, 3, 7);           /* 3: slot bytes 8..15 */
		st->off = 4, st->size = 8;
		ld = I(f, IR_LOAD, 4, between == 2 ? 1 : 2, 0);
		ld->off = between == 1 ? 12 : 0, ld->size = 4;   /* bytes 0..3, 12..15, or unknown */
		st = I(f, IR_STORE, 0, 2, 4);             /* 5: slot bytes 8..15 again */
		st->off = 8, st->size = 8;
		ld = I(f, IR_LOAD, 5, 2, 0);
		ld->off = 8, ld->size = 8;
		I(f, IR_ALU, 5, 5, 4)->alu = BPF_ADD;
		I(f, IR_RET, 0, 5, 0);
		run(f, "dse");
		static const char *const names[] = { "pass/dse-overwritten-through-address", "pass/dse-read-through-address",
			"pass/dse-unknown-load" };
		CHECK(names[between], (f->ins[3].op == IR_STORE) == (between != 0), "%s", shape(f));
	}

	/* merge-checks: if p + 14 > end goto L; q = p; if q + 34 > end goto L: the first goes;
	 * not when the second goes elsewhere, or checks less */
	for (int which = 0; which < 3; which++) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		I(f, IR_LOAD, 2, 1, 0)->size = 4;                 /* 1: p */
		ld = I(f, IR_LOAD, 3, 1, 0);                      /* 2: end */
		ld->size = 4, ld->off = 4;
		IMM(f, IR_ALU, 4, 2, 14)->alu = BPF_ADD;          /* 3 */
		br = I(f, IR_BR, 0, 4, 3);                        /* 4: the first check */
		br->alu = BPF_JGT, br->label = 1, br->bounds = KL_BOUNDS_END_B;
		I(f, IR_MOV, 5, 2, 0);                            /* 5: q = p */
		IMM(f, IR_ALU, 6, 5, which == 2 ? 10 : 34)->alu = BPF_ADD;
		br = I(f, IR_BR, 0, 6, 3);                        /* 7: the second */
		br->alu = BPF_JGT, br->label = which == 1 ? 2 : 1, br->bounds = KL_BOUNDS_END_B;
		I(f, IR_LOAD, 7, 5, 0)->size = 1;
		I(f, IR_RET, 0, 7, 0);
		LAB(f, IR_LABEL, 1);
		IMM(f, IR_RET, 0, 0, 1);
		LAB(f, IR_LABEL, 2);
		IMM(f, IR_RET, 0, 0, 2);
		run(f, "merge-checks");
		uint32_t nbr = 0;
		for (uint32_t i = 0; i < f->nins; i++)
			nbr += f->ins[i].op == IR_BR;
		static const char *const names[] = { "pass/merge-checks", "pass/merge-checks-elsewhere",
			"pass/merge-checks-less" };
		CHECK(names[which], nbr == (which ? 2u : 1u), "%u branches: %s", nbr, shape(f));
	}

	/* idle-exit: H: if g != 0 goto T; g = 1; T: i += 1; if i < 8 goto H; X: the guard goes
	 * to X; not when something after the loop reads i */
	for (int which = 0; which < 2; which++) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		IMM(f, IR_MOVI, 2, 0, 0);                         /* 1: g */
		IMM(f, IR_MOVI, 3, 0, 0);                         /* 2: i */
		LAB(f, IR_LABEL, 1);                              /* 3: H */
		br = IMM(f, IR_BR, 0, 2, 0);                      /* 4: the guard */
		br->alu = BPF_JNE, br->label = 2;
		I(f, IR_ALU, 2, 2, 1)->alu = BPF_ADD;             /* 5: the body */
		LAB(f, IR_LABEL, 2);                              /* 6: T */
		IMM(f, IR_ALU, 3, 3, 1)->alu = BPF_ADD;           /* 7 */
		br = IMM(f, IR_BR, 0, 3, 8);                      /* 8: the latch */
		br->alu = BPF_JLT, br->label = 1;
		LAB(f, IR_LABEL, 3);                              /* 9: X */
		I(f, IR_ALU, 4, 2, which ? 3 : 2)->alu = BPF_ADD;
		I(f, IR_RET, 0, 4, 0);
		run(f, "idle-exit");
		CHECK(which ? "pass/idle-exit-counter-read" : "pass/idle-exit", f->ins[4].label == (which ? 2u : 3u),
		      "the guard goes to L%u", f->ins[4].label);
	}

	/* strength: in a loop entered at its head, t = i << 1; p = b + t with i stepped by 1
	 * becomes p = q, q = b + (i << 1) made before the loop and stepped by 2 after i; not
	 * when the loop also reads i in other arithmetic */
	for (int which = 0; which < 2; which++) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);                          /* 0: b */
		IMM(f, IR_MOVI, 2, 0, 0);                         /* 1: i */
		IMM(f, IR_MOVI, 6, 0, 0);                         /* 2: sum */
		LAB(f, IR_LABEL, 1);                              /* 3: H */
		IMM(f, IR_ALU, 3, 2, 1)->alu = BPF_LSH;           /* 4: t */
		I(f, IR_ALU, 4, 1, 3)->alu = BPF_ADD;             /* 5: p */
		I(f, IR_LOAD, 5, 4, 0)->size = 2;                 /* 6 */
		I(f, IR_ALU, 6, 6, which ? 2 : 5)->alu = BPF_ADD; /* 7 */
		IMM(f, IR_ALU, 2, 2, 1)->alu = BPF_ADD;           /* 8: the step */
		br = IMM(f, IR_BR, 0, 2, 8);                      /* 9 */
		br->alu = BPF_JLT, br->label = 1;
		I(f, IR_RET, 0, 6, 0);
		uint32_t nv = f->nvregs;
		run(f, "strength");
		bool q = f->nvregs == nv + 1 && f->ins[3].op == IR_ALU && f->ins[3].d == nv && f->ins[4].op == IR_ALU &&
			 f->ins[4].d == nv && f->ins[4].b == 1;
		if (which)
			CHECK("pass/strength-other-use", f->nvregs == nv && f->ins[4].op == IR_ALU && f->ins[4].alu == BPF_LSH,
			      "%s", shape(f));
		else
			CHECK("pass/strength", q && f->ins[6].op == IR_MOV && f->ins[6].a == nv && f->ins[10].op == IR_ALU &&
			      f->ins[10].d == nv && f->ins[10].imm == 2, "%s", shape(f));   /* (the shift compacted away) */
	}

	/* propagate: (p + 32) - p is 32; (p + 32) - (p + 8) is 24; (p + 32) - q stays */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	I(f, IR_ENTRY, 2, 0, 0)->imm = 1;
	IMM(f, IR_ALU, 3, 1, 32)->alu = BPF_ADD;
	IMM(f, IR_ALU, 4, 1, 8)->alu = BPF_ADD;
	I(f, IR_ALU, 5, 3, 1)->alu = BPF_SUB;      /* 4 -> 32 */
	I(f, IR_ALU, 6, 3, 4)->alu = BPF_SUB;      /* 5 -> 24 */
	I(f, IR_ALU, 7, 3, 2)->alu = BPF_SUB;      /* 6: stays */
	I(f, IR_ALU, 8, 5, 6)->alu = BPF_ADD;
	I(f, IR_ALU, 8, 8, 7)->alu = BPF_ADD;
	I(f, IR_RET, 0, 8, 0);
	run(f, "propagate");
	CHECK("pass/propagate-distance", f->ins[4].op == IR_MOVI && f->ins[4].imm == 32 && f->ins[5].op == IR_MOVI &&
	      f->ins[5].imm == 24 && f->ins[6].op == IR_ALU && f->ins[6].alu == BPF_SUB, "%s", shape(f));

	/* nonnull: data (a packet pointer load) + 14 tested against 0: == never jumps, != always */
	for (int ne = 0; ne <= 1; ne++) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		ld = I(f, IR_LOAD, 2, 1, 0);
		ld->size = 4, ld->bounds = KL_PKT_POINTER;
		IMM(f, IR_ALU, 3, 2, 14)->alu = BPF_ADD;
		br = IMM(f, IR_BR, 0, 3, 0);
		br->alu = ne ? BPF_JNE : BPF_JEQ, br->label = 1;
		IMM(f, IR_RET, 0, 0, 1);
		LAB(f, IR_LABEL, 1);
		IMM(f, IR_RET, 0, 0, 2);
		run(f, "nonnull");
		const struct kl_ir_ins *t = &f->ins[3];
		CHECK(ne ? "pass/nonnull-always" : "pass/nonnull-never",
		      ne ? t->op == IR_JMP && t->label == 1 : !strcmp(shape(f), "entry load alu ret label ret"), "%s",
		      shape(f));
	}

	/* copies: reads of d = s (s set twice, so not propagate's) read s while s holds it; a copy
	 * one of whose reads comes after s changed keeps all its reads */
	for (int late = 0; late <= 1; late++) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		I(f, IR_LOAD, 2, 1, 0)->size = 4;                  /* s */
		I(f, IR_MOV, 3, 2, 0);                             /* d = s */
		I(f, IR_ALU, 4, 3, 1)->alu = BPF_ADD;              /* d + ... */
		IMM(f, IR_ALU, 2, 2, 7)->alu = BPF_ADD;            /* s changes */
		if (late)
			I(f, IR_ALU, 4, 4, 3)->alu = BPF_ADD;      /* ... + d after it */
		I(f, IR_ALU, 5, 4, 2)->alu = BPF_ADD;
		I(f, IR_RET, 0, 5, 0);
		run(f, "copies");
		if (!late)
			CHECK("pass/copies", f->ins[3].a == 2, "%s a=v%u", shape(f), f->ins[3].a);
		else
			CHECK("pass/copies-all-or-none", f->ins[3].a == 3 && f->ins[5].b == 3, "%s", shape(f));
	}

	/* bounds-first: in a loop, `if p > end goto skip` (a bounds check) is `if p <= end goto
	 * in; goto skip; in:`; the same check outside a loop stays */
	for (int loop = 1; loop >= 0; loop--) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		I(f, IR_LOAD, 2, 1, 0)->size = 4;              /* p */
		ld = I(f, IR_LOAD, 3, 1, 0);                   /* end */
		ld->size = 4, ld->off = 4;
		LAB(f, IR_LABEL, 1);
		br = I(f, IR_BR, 0, 2, 3);
		br->alu = BPF_JGT, br->label = 2, br->bounds = KL_BOUNDS_END_B;
		IMM(f, IR_ALU, 2, 2, 1)->alu = BPF_ADD;
		LAB(f, IR_LABEL, 2);
		if (loop)
			LAB(f, IR_JMP, 1);
		IMM(f, IR_RET, 0, 0, 0);
		run(f, "bounds-first");
		const struct kl_ir_ins *b2 = &f->ins[4], *j = &f->ins[5], *lb = &f->ins[6];
		if (loop)
			CHECK("pass/bounds-first", b2->op == IR_BR && b2->alu == BPF_JLE && j->op == IR_JMP && j->label == 2 &&
			      lb->op == IR_LABEL && lb->label == b2->label && b2->label != 2, "%s", shape(f));
		else
			CHECK("pass/bounds-first-not-in-a-loop", b2->op == IR_BR && b2->alu == BPF_JGT && b2->label == 2,
			      "%s", shape(f));
	}

	/* sums: u = p + (x + 14) is (p + x) + 14; (x + 1) << 1 is (x << 1) + 2; an inner sum
	 * read twice stays */
	for (int k = 0; k < 3; k++) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		I(f, IR_LOAD, 2, 1, 0)->size = 4;                 /* x */
		if (k == 1) {
			IMM(f, IR_ALU, 3, 2, 1)->alu = BPF_ADD;
			IMM(f, IR_ALU, 4, 3, 1)->alu = BPF_LSH;
			I(f, IR_RET, 0, 4, 0);
		} else {
			IMM(f, IR_ALU, 3, 2, 14)->alu = BPF_ADD;
			I(f, IR_ALU, 4, 1, 3)->alu = BPF_ADD;
			if (k == 2)
				I(f, IR_ALU, 4, 4, 3)->alu = BPF_ADD;
			I(f, IR_RET, 0, 4, 0);
		}
		run(f, "sums");
		const struct kl_ir_ins *t = &f->ins[2], *u = &f->ins[3];
		if (k == 0)
			CHECK("pass/sums-pointer-first", t->alu == BPF_ADD && !t->has_imm && t->a == 1 && t->b == 2 &&
			      u->has_imm && u->imm == 14 && u->a == 3, "%s", shape(f));
		else if (k == 1)
			CHECK("pass/sums-distribute", t->alu == BPF_LSH && t->imm == 1 && u->alu == BPF_ADD && u->has_imm &&
			      u->imm == 2 && u->a == 3, "%s", shape(f));
		else
			CHECK("pass/sums-shared-stays", t->has_imm && t->imm == 14 && !u->has_imm, "%s", shape(f));
	}

	/* forward: a load of part of a stored constant is that part (bytes 2-3 of
	 * 0x1122334455667788: 0x5566); a stored register read back across a call that cannot
	 * reach the slot is the register; a slot whose address the call gets, or a store over
	 * part of the bytes, keeps its load */
	for (int k = 0; k < 4; k++) {
		f = fn();
		f->nslots = 1;
		f->slots = kl_arena_array(&A, struct kl_slot, 2);
		f->slots[1].size = 8;
		I(f, IR_ENTRY, 1, 0, 0);
		st = k == 0 || k == 3 ? IMM(f, IR_STORE, 0, 0, INT64_C(0x1122334455667788)) : I(f, IR_STORE, 0, 0, 1);
		st->slot = 1, st->size = 8;
		if (k == 3) {
			st = IMM(f, IR_STORE, 0, 0, 0);
			st->slot = 1, st->size = 1, st->off = 3;
		}
		I(f, IR_ADDR, 2, 0, 0)->slot = 1;
		if (k == 1 || k == 2) {
			struct kl_ir_ins *c = I(f, IR_CALL, 3, 0, 0);
			c->imm = BPF_FUNC_ktime_get_ns;
			if (k == 2)
				c->imm = BPF_FUNC_get_current_comm, c->nargs = 1, c->args[0] = 2;
		}
		ld = I(f, IR_LOAD, 4, 2, 0);
		ld->size = k == 1 || k == 2 ? 8 : 2, ld->off = k == 1 || k == 2 ? 0 : 2;
		I(f, IR_RET, 0, 4, 0);
		run(f, "forward");
		const struct kl_ir_ins *r = &f->ins[f->nins - 2];
		if (k == 0)
			CHECK("pass/forward-constant-part", r->op == IR_MOVI && r->imm == 0x5566, "%s imm %lld", shape(f),
			      (long long)r->imm);
		else if (k == 1)
			CHECK("pass/forward-register", r->op == IR_MOV && r->a == 1, "%s", shape(f));
		else
			CHECK(k == 2 ? "pass/forward-escaped-slot" : "pass/forward-partial-overwrite", r->op == IR_LOAD,
			      "%s", shape(f));
	}

	/* forward across labels: a constant stored, then a branch over a store through another
	 * pointer, read at the join: the constant; not when a jump from before the store enters
	 * the stretch */
	for (int k = 0; k < 2; k++) {
		f = fn();
		f->nslots = 1;
		f->slots = kl_arena_array(&A, struct kl_slot, 2);
		f->slots[1].size = 8;
		I(f, IR_ENTRY, 1, 0, 0);
		if (k) {
			br = IMM(f, IR_BR, 0, 1, 0);
			br->alu = BPF_JEQ, br->label = 2;
		}
		I(f, IR_ADDR, 2, 0, 0)->slot = 1;
		st = IMM(f, IR_STORE, 0, 2, 77);
		st->size = 8;
		br = IMM(f, IR_BR, 0, 1, 5);
		br->alu = BPF_JEQ, br->label = 1;
		IMM(f, IR_STORE, 0, 1, 9)->size = 8;            /* through the argument: not the slot */
		LAB(f, IR_LABEL, 1);
		LAB(f, IR_LABEL, 2);
		I(f, IR_ADDR, 3, 0, 0)->slot = 1;
		ld = I(f, IR_LOAD, 4, 3, 0);
		ld->size = 8;
		I(f, IR_RET, 0, 4, 0);
		run(f, "forward");
		const struct kl_ir_ins *r = &f->ins[f->nins - 2];
		if (k)
			CHECK("pass/forward-entered-between", r->op == IR_LOAD, "%s", shape(f));
		else
			CHECK("pass/forward-across-labels", r->op == IR_MOVI && r->imm == 77, "%s", shape(f));
	}

	/* jmp32: a branch on (x << 32) s>> 32 against -5 compares x's low 32 bits (size 4), the
	 * extension then dead; one whose extension a store also reads, or whose constant needs
	 * more than 32 bits, stays */
	for (int k = 0; k < 3; k++) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		ld = I(f, IR_LOAD, 2, 1, 0);
		ld->size = 4;
		IMM(f, IR_ALU, 3, 2, 32)->alu = BPF_LSH;
		IMM(f, IR_ALU, 4, 3, 32)->alu = BPF_ARSH;
		if (k == 1)
			I(f, IR_STORE, 0, 1, 4)->size = 8;
		br = IMM(f, IR_BR, 0, 4, k == 2 ? INT64_C(1) << 33 : -5);
		br->alu = BPF_JSLT, br->label = 1;
		IMM(f, IR_RET, 0, 0, 1);
		LAB(f, IR_LABEL, 1);
		IMM(f, IR_RET, 0, 0, 2);
		run(f, "jmp32");
		uint32_t at = k == 1 ? 5 : 4;
		bool narrowed = f->ins[at].op == IR_BR && f->ins[at].size == 4 && f->ins[at].a == 2;
		if (k == 0)
			CHECK("pass/jmp32", narrowed, "%s", shape(f));
		else
			CHECK(k == 1 ? "pass/jmp32-extension-kept" : "pass/jmp32-wide-constant",
			      f->ins[at].op == IR_BR && f->ins[at].size != 4 && f->ins[at].a == 4, "%s", shape(f));
	}

	/* unroll-fold (with the passes its trial runs on): s = 0; for (i = 0; i < 10; i++) s +=
	 * i * i is s = 285 (the loop gone); the same over a value loaded at run time stays a loop
	 * (unrolled, it would be larger); and so does the first with sccp switched off, in the
	 * trial too (-fno-sccp) */
	for (int folds = 2; folds >= 0; folds--) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		if (folds)
			IMM(f, IR_MOVI, 2, 0, 0);
		else
			I(f, IR_LOAD, 2, 1, 0)->size = 4;
		IMM(f, IR_MOVI, 3, 0, 0);                     /* i = 0 */
		LAB(f, IR_LABEL, 1);
		br = IMM(f, IR_BR, 0, 3, 10);                 /* i >= 10: out */
		br->alu = BPF_JGE, br->label = 2;
		I(f, IR_ALU, 4, 3, 3)->alu = BPF_MUL;
		I(f, IR_ALU, 2, 2, 4)->alu = BPF_ADD;
		IMM(f, IR_ALU, 3, 3, 1)->alu = BPF_ADD;
		LAB(f, IR_JMP, 1);
		LAB(f, IR_LABEL, 2);
		I(f, IR_RET, 0, 2, 0);
		uint64_t on = 1ull << kl_opt_pass_find("unroll-fold") | 1ull << kl_opt_pass_find("unreachable") |
			      1ull << kl_opt_pass_find("adce") | 1ull << kl_opt_pass_find("dce");
		if (folds != 1)
			on |= 1ull << kl_opt_pass_find("sccp");
		kl_opt(&A, f, &(struct kl_opt_config){ .level = 2, .disabled = ~on });
		bool loops = false;
		for (uint32_t i = 0; i < f->nins; i++)
			loops |= f->ins[i].op == IR_JMP && f->ins[i].label == 1;
		int64_t ret = -1;
		for (uint32_t i = 0; i < f->nins; i++)
			if (f->ins[i].op == IR_RET)
				ret = f->ins[i].has_imm ? f->ins[i].imm : -2;
		if (folds == 2)
			CHECK("pass/unroll-fold", !loops && ret == 285, "%s (returns %lld)", shape(f), (long long)ret);
		else
			CHECK(folds ? "pass/unroll-fold-no-sccp" : "pass/unroll-fold-keeps", loops, "%s", shape(f));
	}

	/* select: `d = 1; if a < b goto L; d = 0; L:` over u32 loads is (a - b) >> 63; over a
	 * 64-bit load it stays a branch */
	for (int narrow = 1; narrow >= 0; narrow--) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		I(f, IR_LOAD, 2, 1, 0)->size = narrow ? 4 : 8;
		I(f, IR_LOAD, 3, 1, 0)->size = 4;
		IMM(f, IR_MOVI, 4, 0, 1);
		br = I(f, IR_BR, 0, 2, 3);
		br->alu = BPF_JLT, br->label = 1;
		IMM(f, IR_MOVI, 4, 0, 0);
		LAB(f, IR_LABEL, 1);
		I(f, IR_RET, 0, 4, 0);
		run(f, "select");
		if (narrow)
			CHECK("pass/select", f->ins[3].op == IR_ALU && f->ins[3].alu == BPF_SUB && f->ins[3].a == 2 &&
			      f->ins[3].b == 3 && f->ins[4].op == IR_ALU && f->ins[4].alu == BPF_RSH && f->ins[4].imm == 63,
			      "%s", shape(f));
		else
			CHECK("pass/select-keeps", f->ins[4].op == IR_BR, "%s", shape(f));
	}

	/* thread-const: `v2 = 0; goto L2` where L2 tests v2 == 0: the jump goes to the test's
	 * target; the path that brings v1 keeps the test */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	br = IMM(f, IR_BR, 0, 1, 14);                 /* 1 */
	br->alu = BPF_JGT, br->label = 1;
	IMM(f, IR_MOVI, 2, 0, 0);                     /* 2 */
	LAB(f, IR_JMP, 2);                            /* 3 -> L3 */
	LAB(f, IR_LABEL, 1);                          /* 4 */
	I(f, IR_MOV, 2, 1, 0);                        /* 5 */
	LAB(f, IR_LABEL, 2);                          /* 6 */
	br = IMM(f, IR_BR, 0, 2, 0);                  /* 7 */
	br->alu = BPF_JEQ, br->label = 3;
	I(f, IR_RET, 0, 2, 0);
	LAB(f, IR_LABEL, 3);
	IMM(f, IR_RET, 0, 0, 7);
	run(f, "thread-const");
	CHECK("pass/thread-const", f->ins[3].op == IR_JMP && f->ins[3].label == 3 && f->ins[7].op == IR_BR, "%s L%u",
	      shape(f), f->ins[3].label);

	/* rotate: `L1: if v2 >= v1 goto L2; v2 += 1; goto L1; L2:` gets the test at the bottom,
	 * turned around (`if v2 < v1 goto` the body), the one at L1 kept as the guard; a test
	 * that cannot be turned around (JSET) leaves the loop as it is */
	for (int turns = 1; turns >= 0; turns--) {
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		IMM(f, IR_MOVI, 2, 0, 0);
		LAB(f, IR_LABEL, 1);
		br = I(f, IR_BR, 0, 2, 1);
		br->alu = turns ? BPF_JGE : BPF_JSET, br->label = 2;
		IMM(f, IR_ALU, 2, 2, 1)->alu = BPF_ADD;
		LAB(f, IR_JMP, 1);
		LAB(f, IR_LABEL, 2);
		I(f, IR_RET, 0, 2, 0);
		run(f, "rotate");
		if (turns)
			CHECK("pass/rotate", !strcmp(shape(f), "entry movi label br label alu br label ret") &&
			      f->ins[3].alu == BPF_JGE && f->ins[3].label == 2 && f->ins[6].alu == BPF_JLT &&
			      f->ins[6].label == f->ins[4].label && f->ins[7].label == 2, "%s", shape(f));
		else
			CHECK("pass/rotate-keeps", !strcmp(shape(f), "entry movi label br alu jmp label ret"), "%s", shape(f));
	}

	/* triangle: `if v2 == 0 goto L1; v3 = *v2; goto L2; L1: v3 = 0; L2:` (a map value or 0)
	 * is `v3 = 0; if v2 == 0 goto L2; v3 = *v2`; with a copy for the value it stays */
	for (int copy = 0; copy <= 2; copy++) {   /* 2: the value's arm two instructions long */
		f = fn();
		I(f, IR_ENTRY, 1, 0, 0);
		I(f, IR_LOAD, 2, 1, 0)->size = 8;
		br = IMM(f, IR_BR, 0, 2, 0);
		br->alu = BPF_JEQ, br->label = 1;
		if (copy == 2)
			IMM(f, IR_ALU, 4, 2, 9)->alu = BPF_ADD;
		if (copy == 1)
			I(f, IR_MOV, 3, 2, 0);
		else
			I(f, IR_LOAD, 3, copy == 2 ? 4 : 2, 0)->size = 8;
		LAB(f, IR_JMP, 2);
		LAB(f, IR_LABEL, 1);
		IMM(f, IR_MOVI, 3, 0, 0);
		LAB(f, IR_LABEL, 2);
		I(f, IR_RET, 0, 3, 0);
		run(f, "triangle");
		if (!copy)
			CHECK("pass/triangle", !strcmp(shape(f), "entry load movi br load label ret") &&
			      f->ins[3].alu == BPF_JEQ && f->ins[3].label == 2 && f->ins[4].d == 3, "%s", shape(f));
		else if (copy == 2)
			CHECK("pass/triangle-arm", !strcmp(shape(f), "entry load movi br alu load label ret") &&
			      f->ins[2].d == 3 && f->ins[3].label == 2 && f->ins[5].d == 3 && f->ins[5].a == 4, "%s",
			      shape(f));
		else
			CHECK("pass/triangle-keeps", !strcmp(shape(f), "entry load br mov jmp label movi label ret"), "%s",
			      shape(f));
	}

	/* inline: main calls g(v1, 5); g returns its first argument plus its second; the call
	 * becomes g's body with the arguments moved in and the result moved out */
	struct kl_ir_func *g = fn();
	g->nvregs = 4;
	g->nlabels = 0;
	I(g, IR_ENTRY, 1, 0, 0)->imm = 0;
	I(g, IR_ENTRY, 2, 0, 0)->imm = 1;
	I(g, IR_ALU, 3, 1, 2)->alu = BPF_ADD;
	I(g, IR_RET, 0, 3, 0);
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_MOVI, 2, 0, 5);
	struct kl_ir_ins *call = I(f, IR_CALLF, 3, 0, 0);
	call->imm = 0, call->nargs = 2, call->args[0] = 1, call->args[1] = 2;
	I(f, IR_RET, 0, 3, 0);
	struct kl_ir_func *all[] = { g, f };
	kl_inline(&A, all, 1, 2);
	CHECK("pass/inline", !strcmp(shape(f), "entry movi mov mov alu mov jmp label ret") && f->ins[2].a == 1 &&
	      f->ins[3].a == 2 && f->ins[5].d == 3 && f->ins[4].d == f->ins[5].a && f->nvregs == 16 + 3,
	      "%s (%u vregs)", shape(f), f->nvregs);
	CHECK("pass/inline-keeps-callee", !strcmp(shape(g), "entry entry alu ret"), "%s", shape(g));

	/* the manager: every pass switched off leaves the IR as it was; --print-after prints */
	f = fn();
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_MOVI, 2, 0, 5);
	IMM(f, IR_RET, 0, 0, 0);
	kl_opt(&A, f, &(struct kl_opt_config){ .level = 2, .disabled = ~0ull });
	CHECK("pass/all-off", !strcmp(shape(f), "entry movi ret"), "%s", shape(f));
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	kl_opt(&A, f, &(struct kl_opt_config){ .level = 0, .print_after = kl_opt_pass_find("dce") + 1, .out = m });
	fclose(m);
	CHECK("pass/print-after", text && strstr(text, ";; after dce\nfunc t") && !strstr(text, "movi"), "%s", text);
	free(text);
	CHECK("pass/find", kl_opt_pass_find("thread") >= 0 && kl_opt_pass_find("nope") < 0 &&
	      strstr(kl_opt_pass_help(), "  coalesce "), "%s", kl_opt_pass_help());
	kl_arena_free(&A);
	return check_failures != 0;
}
