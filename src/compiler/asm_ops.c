/* asm_ops.c — the mnemonics of the asm form (asm_ops.h): one row per instruction, named as
 * the kernel's instruction-set document and the common BPF assemblers name them (add64,
 * ldxdw, jeq, be16...), looked up by name or by the opcode an encoded instruction carries. */
#include "asm_ops.h"
#include "nearest.h"
#include <linux/bpf.h>
#include <stddef.h>
#include <string.h>

#define ALU(n, op) { n "64", BPF_ALU64 | (op) | BPF_K, "dR", false, 0, 64 }, \
		   { n "32", BPF_ALU | (op) | BPF_K, "dR", false, 0, 32 }
#define MEM(sz, s) { "ldx" sz, BPF_LDX | BPF_MEM | (s), "dso", false, 0, 64 }, \
		   { "stx" sz, BPF_STX | BPF_MEM | (s), "Dos", false, 0, 64 }, \
		   { "st" sz, BPF_ST | BPF_MEM | (s), "Doi", false, 0, 64 }
#define JMP(n, op) { n, BPF_JMP | (op) | BPF_K, "rRL", false, 0, 64 }, \
		   { n "32", BPF_JMP32 | (op) | BPF_K, "rRL", false, 0, 32 }
#define END(n, how, bits) { n #bits, BPF_ALU | BPF_END | (how), "d", true, bits, 64 }

static const struct kl_asm_op ops[] = {
	ALU("add", BPF_ADD), ALU("sub", BPF_SUB), ALU("mul", BPF_MUL), ALU("div", BPF_DIV),
	ALU("or", BPF_OR), ALU("and", BPF_AND), ALU("lsh", BPF_LSH), ALU("rsh", BPF_RSH),
	ALU("mod", BPF_MOD), ALU("xor", BPF_XOR), ALU("mov", BPF_MOV), ALU("arsh", BPF_ARSH),
	{ "neg64", BPF_ALU64 | BPF_NEG, "d", false, 0, 64 },
	{ "neg32", BPF_ALU | BPF_NEG, "d", false, 0, 32 },
	END("be", BPF_TO_BE, 16), END("be", BPF_TO_BE, 32), END("be", BPF_TO_BE, 64),
	END("le", BPF_TO_LE, 16), END("le", BPF_TO_LE, 32), END("le", BPF_TO_LE, 64),
	MEM("b", BPF_B), MEM("h", BPF_H), MEM("w", BPF_W), MEM("dw", BPF_DW),
	{ "xaddw", BPF_STX | BPF_ATOMIC | BPF_W, "Dos", true, BPF_ADD, 64 },
	{ "xadddw", BPF_STX | BPF_ATOMIC | BPF_DW, "Dos", true, BPF_ADD, 64 },
	{ "lddw", BPF_LD | BPF_IMM | BPF_DW, "dI", false, 0, 64 },
	{ "ja", BPF_JMP | BPF_JA, "L", false, 0, 64 },
	JMP("jeq", BPF_JEQ), JMP("jgt", BPF_JGT), JMP("jge", BPF_JGE), JMP("jset", BPF_JSET),
	JMP("jne", BPF_JNE), JMP("jsgt", BPF_JSGT), JMP("jsge", BPF_JSGE), JMP("jlt", BPF_JLT),
	JMP("jle", BPF_JLE), JMP("jslt", BPF_JSLT), JMP("jsle", BPF_JSLE),
	{ "call", BPF_JMP | BPF_CALL, "H", false, 0, 64 },
	{ "exit", BPF_JMP | BPF_EXIT, "", false, 0, 64 },
};

const struct kl_asm_op *kl_asm_op_find(const char *name)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i].name, name))
			return &ops[i];
	return NULL;
}

const struct kl_asm_op *kl_asm_op_by_code(uint8_t code, int32_t imm)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		const struct kl_asm_op *o = &ops[i];
		bool either = strchr(o->shape, 'R') != NULL;   /* BPF_K or BPF_X */
		if ((either ? (code & ~BPF_X) : code) == o->code && (!o->fixed || o->imm == imm))
			return o;
	}
	return NULL;
}

void kl_asm_op_names(struct kl_nearest *nb)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		kl_nearest_add(nb, ops[i].name);
}
