/* asm_ops.h — the one table of BPF instruction mnemonics the asm form reads (asm_ops.c): for
 * each, its opcode (class, operation, size, mode), the operands it takes, and the fixed
 * immediate some carry (a byte swap's width, an atomic's operation). */
#ifndef KL_ASM_OPS_H
#define KL_ASM_OPS_H
#include <stdbool.h>
#include <stdint.h>

struct kl_nearest;

/* The operands, one letter each, in the order they are written:
 *   d  a register the instruction writes (dst_reg; never r10)
 *   r  a register it reads (dst_reg of a conditional jump)
 *   D  a base register of a store (dst_reg; r10 allowed)
 *   s  a source register (src_reg)
 *   R  a register (src_reg, the code's source bit BPF_X) or an immediate (imm, BPF_K)
 *   o  a 16-bit signed offset       i  a 32-bit signed immediate
 *   I  a 64-bit immediate (ld_imm64, two instruction slots)
 *   L  a label: where a jump lands   H  a helper: its name or number */
struct kl_asm_op {
	const char *name;
	uint8_t code;        /* with BPF_K where the shape has R */
	const char *shape;
	bool fixed;          /* imm is the row's own */
	int32_t imm;
	uint8_t width;       /* 32 or 64: how an R immediate is read (32-bit ops take 0..2^32-1) */
};

const struct kl_asm_op *kl_asm_op_find(const char *name);
/* The row of an encoded instruction (Whistler's raw form): by its code, and for the rows
 * with a fixed immediate by that too; NULL for none. */
const struct kl_asm_op *kl_asm_op_by_code(uint8_t code, int32_t imm);
/* Every mnemonic, for "did you mean". */
void kl_asm_op_names(struct kl_nearest *nb);

#endif
