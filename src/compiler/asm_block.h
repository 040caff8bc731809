/* asm_block.h — a block of raw BPF instructions as lowering (lower_asm.c) leaves it for the
 * allocator and the emitter: the instructions, encoded and with their jumps resolved within
 * the block, and the registers it names. The IR carries it in one IR_ASM instruction, whose
 * args are the inputs (in the registers in_reg names, in order) and whose d is the output. */
#ifndef KL_ASM_BLOCK_H
#define KL_ASM_BLOCK_H
#include "diag.h"
#include <linux/bpf.h>
#include <stdint.h>

struct kl_asm_block {
	const struct bpf_insn *insns;
	const struct kl_span *spans;   /* per instruction slot: where it is written */
	uint32_t ninsns;
	uint8_t in_reg[5];             /* the register of each input (IR_ASM's args) */
	uint8_t nin;
	int8_t out_reg;                /* the register the value is read from; -1: none */
	uint16_t clobbers;             /* registers it may change (r0-r5 with a call, its inputs'
					* and its output's): nothing live across it is kept there */
};

#endif
