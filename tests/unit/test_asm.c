/* test_asm.c — the asm form's block (asm_block.h) through the allocator and the emitter, on
 * IR built by hand: a value live across a block keeps out of the registers it changes (in
 * the one register left, or spilled when none is); inputs that sit in each other's registers
 * are swapped through a register the block changes and no other; the raw instructions come
 * out exactly as written, together, and the output is taken from its register. */
#include "check.h"
#include "irbuild.h"
#include "compiler/asm.h"
#include "compiler/asm_block.h"
#include "compiler/compile.h"
#include "compiler/emit.h"
#include "compiler/regalloc.h"
#include <linux/bpf.h>
#include <string.h>

static struct kl_diag D;

static struct kl_ir_ins *asm_ins(struct kl_ir_func *f, kl_vreg d, const struct kl_asm_block *b)
{
	struct kl_ir_ins *i = I(f, IR_ASM, d, 0, 0);
	i->asmb = b;
	return i;
}

int main(void)
{
	static const struct bpf_insn body[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 0, .src_reg = 2 },
		{ .code = BPF_ALU64 | BPF_LSH | BPF_K, .dst_reg = 0, .imm = 8 },
		{ .code = BPF_ALU64 | BPF_OR | BPF_X, .dst_reg = 0, .src_reg = 1 },
	};
	struct kl_span spans[3] = { { .line = 7 }, { .line = 8 }, { .line = 9 } };
	struct kl_comp c = { .a = &A, .d = &D };
	struct kl_alloc al;
	struct kl_func o;

	/* v2 = 7 lives across blocks that change every register but r6, then every one */
	for (int all = 0; all <= 1; all++) {
		struct kl_asm_block b = { body, spans, 3, { 0 }, 0, -1, (uint16_t)(all ? 0x3ff : 0x3bf) };
		struct kl_ir_func *f = ir_fn(4, 0);
		I(f, IR_ENTRY, 1, 0, 0);
		IMM(f, IR_MOVI, 2, 0, 7);
		asm_ins(f, 0, &b);
		I(f, IR_RET, 0, 2, 0);
		int r = kl_regalloc(&A, &D, f, &al);
		CHECK(all ? "asm/live-across-spilled" : "asm/live-across-kept", !r && al.reg[2] == (all ? KL_REG_SPILLED : 6),
		      "v2 in %d (%s)", al.reg[2], D.msg);
	}

	/* inputs v1 -> r2 and v2 -> r1, found in r1 and r2: swapped through r0 (the block
	 * changes r0, r1 and r2), then the block, then r0 is the output */
	struct kl_asm_block b = { body, spans, 3, { 2, 1 }, 2, 0, 0x7 };
	struct kl_ir_func *f = ir_fn(4, 0);
	I(f, IR_ENTRY, 1, 0, 0);
	IMM(f, IR_ENTRY, 2, 0, 1);
	struct kl_ir_ins *x = asm_ins(f, 3, &b);
	x->nargs = 2, x->args[0] = 1, x->args[1] = 2;
	I(f, IR_RET, 0, 3, 0);
	memset(&o, 0, sizeof(o));
	int r = kl_regalloc(&A, &D, f, &al);
	al.reg[1] = 1, al.reg[2] = 2, al.reg[3] = 0;   /* as if the hints had lost */
	r = r ? r : kl_emit(&c, f, &al, &o);
	CHECK("asm/emit-ok", r == 0, "%s", D.msg);
	int start = -1;   /* where the block's instructions start, all three together */
	for (uint32_t i = 0; r == 0 && i + 3 <= o.ninsns && start < 0; i++)
		if (!memcmp(&o.insns[i], body, sizeof(body)))
			start = (int)i;
	CHECK("asm/exactly-as-written", start >= 0, "the block's instructions are not in the %u emitted", o.ninsns);
	int held[11];   /* what each register holds: the number of the register it came from */
	for (int k = 0; k < 11; k++)
		held[k] = k;
	uint16_t written = 0;
	for (int i = 0; i < start; i++) {
		const struct bpf_insn *m = &o.insns[i];
		if (m->code == (BPF_ALU64 | BPF_MOV | BPF_X))
			held[m->dst_reg] = held[m->src_reg];
		else
			held[m->dst_reg] = -1;
		written |= (uint16_t)(1u << m->dst_reg);
	}
	CHECK("asm/inputs-swapped", start >= 0 && held[2] == 1 && held[1] == 2 && !(written & ~0x7),
	      "r2 holds r%d's value, r1 r%d's; written %#x", held[2], held[1], written);
	CHECK("asm/output", start >= 0 && (uint32_t)start + 3 < o.ninsns && o.insns[start + 3].code == (BPF_JMP | BPF_EXIT),
	      "after the block: code %#x", start >= 0 && (uint32_t)start + 3 < o.ninsns ? o.insns[start + 3].code : 0);
	kl_arena_free(&A);
	return CHECK_DONE();
}
