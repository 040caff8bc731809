/* insn.h — one BPF instruction as text, in the kernel verifier's and bpftool's syntax
 * (`r0 = *(u32 *)(r1 + 4)`, `call bpf_map_lookup_elem#1`); shared by disasm and check. */
#ifndef KL_CLI_INSN_H
#define KL_CLI_INSN_H
#include <linux/bpf.h>
#include <stddef.h>

/* What an instruction means beyond its own bits, known only to the caller (from the
 * object's relocations and symbols). Every field may be zero/NULL. */
struct kl_insn_env {
	long pc;                  /* the instruction's index, to print jump targets; < 0: none */
	const char *imm64_ref;    /* what an ld_imm64 loads: "map[counts]", "map[.rodata][0]+16" */
	const char *call_target;  /* the function a BPF-to-BPF call (or kfunc call) reaches */
	/* The name of a label at jump target pc (clang's LBB0_2), or NULL to print the index. */
	const char *(*label)(const void *arg, long pc);
	const void *label_arg;
};

/* Formats insn (and insn[1] for an ld_imm64, when nslots allows) into buf, always
 * NUL-terminated. Returns how many 8-byte slots the instruction occupies: 1, or 2 for an
 * ld_imm64 (printed as "(truncated ld_imm64)" with 1 when the second slot is missing). */
int kl_insn_format(const struct bpf_insn *insn, size_t nslots, const struct kl_insn_env *env,
		   char *buf, size_t len);

#endif
