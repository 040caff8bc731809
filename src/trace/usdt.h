/* usdt.h — a file's USDT probes (SystemTap's .note.stapsdt: provider, name, the address of
 * the nop a uprobe replaces, a semaphore, and each argument's size and location as the
 * compiler wrote it, "-4@%edi 8@-16(%rbp) 8@$5") and those arguments read as x86-64
 * operands: a register of pt_regs, memory at a register plus a displacement, a constant. */
#ifndef KT_USDT_H
#define KT_USDT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "compiler/arena.h"

/* A USDT probe of the file (.note.stapsdt): what a usdt attach point names. */
struct kt_usdt {
	const char *provider, *name;
	const char *args;           /* "-4@%edi 8@-16(%rbp)": size@operand, sign in the size */
	uint64_t offset;            /* file offset of the probe's nop: where the uprobe goes */
	uint64_t sema;              /* file offset of its semaphore, 0 when it has none */
};
/* The USDT probes of the ELF file at path, in note order (none: 0 with *n = 0). 0, or -1
 * with the reason in msg. */
int kt_elf_usdt(struct kl_arena *a, const char *path, struct kt_usdt **out, uint32_t *n, char *msg, size_t len);

/* Argument i (from 0) of a probe's argument string. */
struct kt_usdt_arg {
	enum { KT_UA_REG, KT_UA_MEM, KT_UA_IMM } kind;
	uint32_t size;              /* 1, 2, 4 or 8 bytes */
	bool is_signed;
	uint32_t reg;               /* REG, MEM: the register's offset in struct pt_regs */
	int64_t value;              /* MEM: the displacement; IMM: the constant */
};
/* How many arguments args has. */
uint32_t kt_usdt_nargs(const char *args);
/* Argument i of args into *out: 0, or -1 with the reason in msg (an operand kiln trace does
 * not read: an index register, %rip-relative, a register it does not know). */
int kt_usdt_arg(const char *args, uint32_t i, struct kt_usdt_arg *out, char *msg, size_t len);
#endif
