/* asm.h — the BPF instruction encoder: one constructor per instruction form, so the emitter
 * never assembles opcode bits by hand. */
#ifndef KL_ASM_H
#define KL_ASM_H
#include <linux/bpf.h>
#include <stdint.h>

#define KL_FP 10  /* r10, the read-only frame pointer */

static inline struct bpf_insn kl_insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	struct bpf_insn i = { .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm };
	return i;
}
static inline struct bpf_insn kl_alu64_reg(uint8_t op, uint8_t dst, uint8_t src)
{ return kl_insn(BPF_ALU64 | op | BPF_X, dst, src, 0, 0); }
static inline struct bpf_insn kl_alu64_imm(uint8_t op, uint8_t dst, int32_t imm)
{ return kl_insn(BPF_ALU64 | op | BPF_K, dst, 0, 0, imm); }
static inline struct bpf_insn kl_alu32_reg(uint8_t op, uint8_t dst, uint8_t src)
{ return kl_insn(BPF_ALU | op | BPF_X, dst, src, 0, 0); }
static inline struct bpf_insn kl_alu32_imm(uint8_t op, uint8_t dst, int32_t imm)
{ return kl_insn(BPF_ALU | op | BPF_K, dst, 0, 0, imm); }
static inline struct bpf_insn kl_mov(uint8_t dst, uint8_t src) { return kl_alu64_reg(BPF_MOV, dst, src); }
static inline struct bpf_insn kl_neg(uint8_t dst) { return kl_insn(BPF_ALU64 | BPF_NEG, dst, 0, 0, 0); }
static inline struct bpf_insn kl_to_be(uint8_t dst, int32_t bits)
{ return kl_insn(BPF_ALU | BPF_END | BPF_TO_BE, dst, 0, 0, bits); }

static inline uint8_t kl_size_bits(unsigned bytes)
{
	return bytes == 1 ? BPF_B : bytes == 2 ? BPF_H : bytes == 4 ? BPF_W : BPF_DW;
}
static inline struct bpf_insn kl_ldx(unsigned size, uint8_t dst, uint8_t src, int16_t off)
{ return kl_insn(BPF_LDX | BPF_MEM | kl_size_bits(size), dst, src, off, 0); }
static inline struct bpf_insn kl_stx(unsigned size, uint8_t dst, uint8_t src, int16_t off)
{ return kl_insn(BPF_STX | BPF_MEM | kl_size_bits(size), dst, src, off, 0); }
static inline struct bpf_insn kl_st(unsigned size, uint8_t dst, int16_t off, int32_t imm)
{ return kl_insn(BPF_ST | BPF_MEM | kl_size_bits(size), dst, 0, off, imm); }
static inline struct bpf_insn kl_xadd(unsigned size, uint8_t dst, uint8_t src, int16_t off)
{ return kl_insn(BPF_STX | BPF_ATOMIC | kl_size_bits(size), dst, src, off, BPF_ADD); }

static inline struct bpf_insn kl_jmp_reg(uint8_t cond, uint8_t a, uint8_t b)
{ return kl_insn(BPF_JMP | cond | BPF_X, a, b, 0, 0); }
static inline struct bpf_insn kl_jmp_imm(uint8_t cond, uint8_t a, int32_t imm)
{ return kl_insn(BPF_JMP | cond | BPF_K, a, 0, 0, imm); }
static inline struct bpf_insn kl_ja(void) { return kl_insn(BPF_JMP | BPF_JA, 0, 0, 0, 0); }
static inline struct bpf_insn kl_call_helper(int32_t id) { return kl_insn(BPF_JMP | BPF_CALL, 0, 0, 0, id); }
static inline struct bpf_insn kl_call_local(void)
{ return kl_insn(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, -1); }
static inline struct bpf_insn kl_exit(void) { return kl_insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0); }
/* ld_imm64 is two instruction slots: low 32 bits, then high 32 bits. */
static inline struct bpf_insn kl_ld64_lo(uint8_t dst, uint64_t v)
{ return kl_insn(BPF_LD | BPF_DW | BPF_IMM, dst, 0, 0, (int32_t)(uint32_t)v); }
static inline struct bpf_insn kl_ld64_hi(uint64_t v) { return kl_insn(0, 0, 0, 0, (int32_t)(uint32_t)(v >> 32)); }

#endif
